package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// CapRaw returns payload as JSON of at most max bytes, for keeping alongside
// an event. A small payload is copied as is. A large one keeps its shape: the
// biggest values (tool results, file contents) are replaced, nested objects
// first, by a string saying how many bytes were dropped, until it fits. What
// is not a JSON object is kept as the head of its text.
func CapRaw(payload []byte, max int) []byte {
	if len(payload) <= max && json.Valid(payload) {
		return bytes.Clone(payload)
	}
	if b, ok := shrinkObject(payload, max, 3); ok {
		return b
	}
	return headOnly(payload, max)
}

// shrinkObject drops the largest values of a JSON object until it encodes in
// max bytes; depth bounds how far into nested objects it goes.
func shrinkObject(payload []byte, max, depth int) ([]byte, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(payload, &obj) != nil || obj == nil {
		return nil, false
	}
	size := 2 // the braces
	for k, v := range obj {
		v = compact(v)
		obj[k] = v
		size += len(k) + 4 + len(v) // quotes, colon, comma
	}
	for size > max {
		big, bigLen := "", 0
		for k, v := range obj {
			if len(v) > bigLen {
				big, bigLen = k, len(v)
			}
		}
		marker, _ := json.Marshal(fmt.Sprintf("…%d bytes dropped", bigLen))
		if bigLen <= len(marker) {
			return nil, false // many small fields: nothing left to drop
		}
		repl := json.RawMessage(marker)
		if v := obj[big]; depth > 0 && len(v) > 0 && v[0] == '{' {
			if inner, ok := shrinkObject(v, bigLen-(size-max), depth-1); ok && len(inner) < bigLen {
				repl = inner
			}
		}
		size -= bigLen - len(repl)
		obj[big] = repl
	}
	b, err := json.Marshal(obj)
	if err != nil || len(b) > max {
		return nil, false
	}
	return b, true
}

func compact(v json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil {
		return v
	}
	return buf.Bytes()
}

// headOnly keeps as much of the beginning of payload as fits, as a string.
func headOnly(payload []byte, max int) []byte {
	n := min(len(payload), max/2)
	for {
		head := strings.ToValidUTF8(string(payload[:n]), "")
		b, _ := json.Marshal(struct {
			Truncated bool   `json:"truncated"`
			Bytes     int    `json:"bytes"`
			Head      string `json:"head"`
		}{true, len(payload), head})
		if len(b) <= max || n == 0 {
			return b
		}
		n /= 2
		for n > 0 && !utf8.RuneStart(payload[n]) {
			n--
		}
	}
}

// PayloadTime reads a time a payload carries: an ISO 8601 string, or a Unix
// time as a number in seconds or milliseconds. It returns the zero time for
// anything else, so a payload's odd clock never fails an event.
func PayloadTime(raw json.RawMessage) time.Time {
	if len(raw) == 0 {
		return time.Time{}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC()
		}
		return time.Time{}
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || f <= 0 || math.IsInf(f, 0) {
		return time.Time{}
	}
	if f > 1e11 { // milliseconds: 1e11 seconds is the year 5138
		f /= 1000
	}
	if f > 1e11 {
		return time.Time{}
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC()
}
