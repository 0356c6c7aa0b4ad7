package domain

import (
	"strings"
	"testing"
)

func TestMaxContentBytesSetting(t *testing.T) {
	t.Cleanup(func() { _ = SetMaxContentBytes(DefaultMaxContentBytes) })
	if got := MaxContentBytes(); got != 1<<20 {
		t.Fatalf("default limit %d, want 1 MiB", got)
	}
	if got := ContentLimitText(); got != "1 MiB" {
		t.Fatalf("default limit text %q", got)
	}
	for _, bad := range []int{0, -1, 64<<20 + 1, 1 << 40} {
		err := SetMaxContentBytes(bad)
		if err == nil || !strings.Contains(err.Error(), "1..67108864") {
			t.Fatalf("SetMaxContentBytes(%d) = %v, want a range error", bad, err)
		}
		if got := MaxContentBytes(); got != DefaultMaxContentBytes {
			t.Fatalf("a refused value changed the limit to %d", got)
		}
	}
	for n, text := range map[int]string{1: "1 byte", 1000: "1000 bytes", 64 << 10: "64 KiB", 64 << 20: "64 MiB"} {
		if err := SetMaxContentBytes(n); err != nil {
			t.Fatalf("SetMaxContentBytes(%d): %v", n, err)
		}
		if got := MaxContentBytes(); got != n {
			t.Fatalf("limit %d after setting %d", got, n)
		}
		if got := ContentLimitText(); got != text {
			t.Fatalf("limit text %q for %d, want %q", got, n, text)
		}
	}
}
