package extract_test

import (
	"context"
	"fmt"

	"github.com/saidex/saidex-go/extract"
	"github.com/saidex/saidex-go/saidextest"
)

// Into asks a model for one value of a Go type, validating and retrying
// its answer.
func ExampleInto() {
	type person struct {
		Name string `json:"name"`
		Age  int    `json:"age"`
	}
	model := saidextest.NewModel(saidextest.ForcedToolCall(`{"name": "Ada", "age": 36}`))
	p, err := extract.Into[person](context.Background(), model, "Ada Lovelace was 36.")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", p)
	// Output: {Name:Ada Age:36}
}
