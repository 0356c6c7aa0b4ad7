package cli

import (
	"flag"
	"fmt"
	"strings"
	"testing"
)

func TestParseFlagsAnywhere(t *testing.T) {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	scope := fs.String("scope", "", "")
	asJSON := fs.Bool("json", false, "")
	var tags listFlag
	fs.Var(&tags, "tag", "")
	rest, err := parse(fs, []string{"deploy", "--scope", "s1", "window", "--json", "--tag", "a,b", "--tag=c", "--", "--not-a-flag"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rest) != "[deploy window --not-a-flag]" || *scope != "s1" || !*asJSON || fmt.Sprint(tags) != "[a b c]" {
		t.Fatalf("rest %v scope %q json %v tags %v", rest, *scope, *asJSON, tags)
	}
	if _, err := parse(flag.NewFlagSet("x", flag.ContinueOnError), []string{"--nope"}); err == nil || !strings.Contains(err.Error(), "x: flag provided but not defined: -nope") {
		t.Fatalf("unknown flag: %v", err)
	}
}

func TestChannelsFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "<nil>"},
		{[]string{"--channels"}, "true"},
		{[]string{"--channels=false"}, "false"},
		{[]string{"--channels=on"}, "true"},
	} {
		fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
		var c triBool
		fs.Var(&c, "channels", "")
		if _, err := parse(fs, tc.args); err != nil {
			t.Fatal(err)
		}
		got := "<nil>"
		if c.v != nil {
			got = fmt.Sprint(*c.v)
		}
		if got != tc.want {
			t.Errorf("%v: %s, want %s", tc.args, got, tc.want)
		}
	}
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	var c triBool
	fs.Var(&c, "channels", "")
	if _, err := parse(fs, []string{"--channels=maybe"}); err == nil {
		t.Fatal("--channels=maybe was taken")
	}
}

func TestRunRefusesOtherCommands(t *testing.T) {
	for _, args := range [][]string{nil, {"serve"}, {"export"}} {
		if err := Run(args, nil, nil, nil); err == nil {
			t.Errorf("Run(%v) ran", args)
		}
	}
	if !IsCommand("hook") || IsCommand("serve") {
		t.Fatal("IsCommand")
	}
}
