package domain

import "testing"

func TestIsHeartbeat(t *testing.T) {
	cases := map[string]bool{
		"HEARTBEAT_OK":                  true,
		"  HEARTBEAT_OK\n":              true,
		"HEARTBEAT":                     true,
		"HEARTBEAT_OK HEARTBEAT_ACK":    true,
		"HEARTBEAT_OK.":                 true,
		"HEARTBEAT_V2_OK":               true,
		"":                              false,
		"   ":                           false,
		"heartbeat_ok":                  false,
		"my heartbeat raced":            false,
		"HEARTBEAT_OK but also a thing": false,
		"HEARTBEAT_":                    false,
		"HEARTBEAT__OK":                 false,
		"HEARTBEATS":                    false,
		"HEARTBEAT_ok":                  false,
	}
	for in, want := range cases {
		if got := IsHeartbeat(in); got != want {
			t.Errorf("IsHeartbeat(%q) = %v, want %v", in, got, want)
		}
	}
}
