package scalars

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

// FuzzUnmarshalTime: a time input is either INVALID_ARGUMENT naming its field or a time that
// writes back as RFC 3339 and reads again as the same instant.
func FuzzUnmarshalTime(f *testing.F) {
	for _, s := range []string{"2024-05-01T12:00:00Z", "not-a-time", "", "2023-13-45T00:00:00Z", "0000-01-01T00:00:00Z",
		"9999-12-31T23:59:59.999999999+14:00", "2024-02-30T00:00:00Z", "2024-05-01T12:00:00", "2024-05-01 12:00:00Z", "\x00", "1e10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := UnmarshalTime(context.Background(), s)
		if err != nil {
			if de, ok := err.(*domain.Error); !ok || de.Code != domain.EINVALID || de.Field == "" {
				t.Fatalf("%q refused with %v", s, err)
			}
			return
		}
		var b bytes.Buffer
		if err := MarshalTime(tm).MarshalGQLContext(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		if tm.IsZero() {
			return
		}
		text, err := strconv.Unquote(b.String())
		if err != nil {
			t.Fatalf("%q wrote %s", s, b.String())
		}
		again, err := UnmarshalTime(context.Background(), text)
		if err != nil || !again.Equal(tm) {
			t.Fatalf("%q → %s → %v, %v", s, text, again, err)
		}
	})
}

// FuzzUnmarshalJSON: a JSON input is an object, or INVALID_ARGUMENT naming its field; an object
// writes back as JSON that reads as the same.
func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range []string{`{"k":"v"}`, `[]`, `"s"`, `1`, `null`, `{"a":{"b":[1,2,{"c":null}]}}`, `{"\u0000":"\ud800"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var v any
		if json.Unmarshal([]byte(raw), &v) != nil {
			return
		}
		m, err := UnmarshalJSON(context.Background(), v)
		if err != nil {
			if de, ok := err.(*domain.Error); !ok || de.Code != domain.EINVALID || de.Field == "" {
				t.Fatalf("%s refused with %v", raw, err)
			}
			return
		}
		var b bytes.Buffer
		if err := MarshalJSON(m).MarshalGQLContext(context.Background(), &b); err != nil {
			t.Fatalf("%s does not write back: %v", raw, err)
		}
		var back any
		if err := json.Unmarshal(b.Bytes(), &back); err != nil {
			t.Fatalf("%s wrote %s: %v", raw, b.String(), err)
		}
		x, _ := json.Marshal(m)
		y, _ := json.Marshal(back)
		if !bytes.Equal(x, y) {
			t.Fatalf("%s → %s", x, y)
		}
	})
}
