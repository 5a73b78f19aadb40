// Package providercontract holds saidex's provider contract tests for the
// langchaingo clients whose dependencies the library's own test build must
// not compile: llms/googleai (genai, gRPC), llms/mistral (mistral-go) and
// llms/bedrock (the AWS SDK). It is a module of its own, run by .ci/run;
// the root module's ./... skips it.
//
// Each test drives the real client against a local server that enforces
// the provider's rules on the conversation it receives, so what is
// asserted is what the provider would accept or reject, not saidex's own
// structures.
package providercontract
