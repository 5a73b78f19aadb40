package readings

// The strict JSON pushdown parser the search runs on: it reads the text a
// reading writes (the broken text with the reading's edits made), one
// byte at a time, and accepts exactly RFC 8259 JSON whose top-level value
// is an object or an array (a list is a reading too, of a value that is no
// arguments: a list cut after its first item is not that item). Its state
// is a few small integers and the index of the bracket stack's top in a
// shared arena, so a configuration is copied by value and compared by
// integers.

// Parser modes.
const (
	mStart    uint8 = iota // the top-level '{' or '[' expected
	mObjFirst              // after '{': a key or '}'
	mObjKey                // after ',' in an object: a key
	mColon                 // after a key: ':'
	mValue                 // a value expected
	mArrFirst              // after '[': a value or ']'
	mAfter                 // after a value in a container: ',' or its closer
	mDone                  // the top-level object or list complete
	mStr                   // in a string (sub bit 0: a key)
	mStrEsc                // after a backslash in a string
	mStrU                  // in \uXXXX (sub bits 1-3: digits read)
	mNumNeg                // after '-'
	mNumZero               // after a leading 0
	mNumInt                // in the integer digits
	mNumDot                // after '.'
	mNumFrac               // in the fraction digits
	mNumE                  // after 'e'
	mNumESign              // after the exponent's sign
	mNumExp                // in the exponent digits
	mLit                   // in true, false or null (sub: literal<<4 | index)
)

var literals = [3]string{"true", "false", "null"}

// pstate is the parser's state.
type pstate struct {
	mode  uint8
	sub   uint8
	stack int32 // the stack's top in the arena; -1 when empty
}

// snode is one bracket of a stack, shared by the stacks that hold it.
type snode struct {
	parent int32
	kind   byte   // '{' or '['
	h      uint64 // a hash of the stack's content up to here
}

// inString reports whether the state is inside a string's content
// (after its opening quote, before its closing one).
func (st pstate) inString() bool { return st.mode == mStr || st.mode == mStrEsc || st.mode == mStrU }

// inNumber reports whether the state is inside a number.
func (st pstate) inNumber() bool { return st.mode >= mNumNeg && st.mode <= mNumExp }

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isDigit(c byte) bool {
	return c >= '0' && c <= '9'
}
func isHexDigit(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// stackHash returns the hash of the stack whose top is top.
func (e *engine) stackHash(top int32) uint64 {
	if top < 0 {
		return 0
	}
	return e.stk[top].h
}

func (e *engine) push(st *pstate, kind byte) {
	h := e.stackHash(st.stack)*1099511628211 ^ uint64(kind)
	e.stk = append(e.stk, snode{st.stack, kind, h})
	st.stack = int32(len(e.stk) - 1)
}

// afterValue moves st past a complete value.
func (e *engine) afterValue(st *pstate) {
	if st.stack < 0 {
		st.mode = mDone
	} else {
		st.mode = mAfter
	}
	st.sub = 0
}

// feed reads c in st; false when no JSON object text continues so. emit
// reports whether c is part of the compact text (white space outside
// strings is not).
func (e *engine) feed(st *pstate, c byte) (ok, emit bool) {
	switch st.mode {
	case mStr:
		switch {
		case c == '"':
			if st.sub&1 == 1 {
				st.mode, st.sub = mColon, 0
			} else {
				e.afterValue(st)
			}
		case c == '\\':
			st.mode = mStrEsc
		case c < 0x20:
			return false, false
		}
		return true, true
	case mStrEsc:
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			st.mode = mStr
		case 'u':
			st.mode, st.sub = mStrU, st.sub&1
		default:
			return false, false
		}
		return true, true
	case mStrU:
		if !isHexDigit(c) {
			return false, false
		}
		n := st.sub>>1 + 1
		if n == 4 {
			st.mode, st.sub = mStr, st.sub&1
		} else {
			st.sub = st.sub&1 | n<<1
		}
		return true, true
	case mLit:
		lit, i := literals[st.sub>>4], st.sub&15
		if c != lit[i] {
			return false, false
		}
		if int(i)+1 == len(lit) {
			e.afterValue(st)
		} else {
			st.sub++
		}
		return true, true
	}
	if st.inNumber() {
		if next, ok := numberNext(st.mode, c); ok {
			st.mode = next
			return true, true
		}
		switch st.mode {
		case mNumZero, mNumInt, mNumFrac, mNumExp:
			e.afterValue(st)
		default:
			return false, false
		}
	}
	if isWS(c) {
		return true, false
	}
	switch st.mode {
	case mStart:
		switch c {
		case '{':
			e.push(st, '{')
			st.mode = mObjFirst
		case '[':
			e.push(st, '[')
			st.mode = mArrFirst
		default:
			return false, false
		}
	case mObjFirst, mObjKey:
		switch {
		case c == '"':
			st.mode, st.sub = mStr, 1
		case c == '}' && st.mode == mObjFirst:
			e.pop(st)
		default:
			return false, false
		}
	case mColon:
		if c != ':' {
			return false, false
		}
		st.mode = mValue
	case mValue, mArrFirst:
		switch {
		case c == '{':
			e.push(st, '{')
			st.mode = mObjFirst
		case c == '[':
			e.push(st, '[')
			st.mode = mArrFirst
		case c == '"':
			st.mode, st.sub = mStr, 0
		case c == '-':
			st.mode = mNumNeg
		case c == '0':
			st.mode = mNumZero
		case c >= '1' && c <= '9':
			st.mode = mNumInt
		case c == 't':
			st.mode, st.sub = mLit, 0<<4|1
		case c == 'f':
			st.mode, st.sub = mLit, 1<<4|1
		case c == 'n':
			st.mode, st.sub = mLit, 2<<4|1
		case c == ']' && st.mode == mArrFirst:
			e.pop(st)
		default:
			return false, false
		}
	case mAfter:
		kind := e.stk[st.stack].kind
		switch {
		case c == ',' && kind == '{':
			st.mode = mObjKey
		case c == ',':
			st.mode = mValue
		case c == '}' && kind == '{', c == ']' && kind == '[':
			e.pop(st)
		default:
			return false, false
		}
	default: // mDone
		return false, false
	}
	return true, true
}

func (e *engine) pop(st *pstate) {
	st.stack = e.stk[st.stack].parent
	e.afterValue(st)
}

// numberNext returns the number state after c, and false when c does not
// continue the number.
func numberNext(m uint8, c byte) (uint8, bool) {
	d := isDigit(c)
	switch m {
	case mNumNeg:
		switch {
		case c == '0':
			return mNumZero, true
		case d:
			return mNumInt, true
		}
	case mNumZero, mNumInt:
		switch {
		case d && m == mNumInt:
			return mNumInt, true
		case c == '.':
			return mNumDot, true
		case c == 'e' || c == 'E':
			return mNumE, true
		}
	case mNumDot, mNumFrac:
		switch {
		case d:
			return mNumFrac, true
		case m == mNumFrac && (c == 'e' || c == 'E'):
			return mNumE, true
		}
	case mNumE:
		switch {
		case c == '+' || c == '-':
			return mNumESign, true
		case d:
			return mNumExp, true
		}
	case mNumESign, mNumExp:
		if d {
			return mNumExp, true
		}
	}
	return 0, false
}
