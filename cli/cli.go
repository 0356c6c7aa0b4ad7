// Package cli is the command line's side of a running server: the commands that only talk to
// it through package client — store, search, claim, recall and scopes for people and scripts,
// the coding-agent hooks, and the MCP stdio bridge. They never open a data folder.
//
// They run before the rest of the program is initialised (see fastpath.go): the totalrecall
// binary links the Dgraph engine, whose package initialisation hashes the whole executable, and
// a hook must answer within milliseconds of its process starting.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/totalrecall/totalrecall/client"
	"github.com/totalrecall/totalrecall/hook"
)

// Commands are the commands Run serves.
var Commands = []string{"store", "search", "claim", "recall", "scopes", "hook", "mcp"}

// IsCommand reports whether name is one of Commands.
func IsCommand(name string) bool {
	for _, c := range Commands {
		if c == name {
			return true
		}
	}
	return false
}

// Usage lists the commands, for the program's usage text.
const Usage = `  totalrecall store   [--server URL] --scope S [--tier T] [--kind K] [--tag T]... [--metadata JSON]
                      [--importance F] [--json] TEXT|-           store a memory on a running server
  totalrecall search  [--server URL] --scope S [--max N] [--tier T]... [--tag T]... [--no-associations]
                      [--json] QUERY                             search a scope
  totalrecall claim   [--server URL] [--json] ID...              claim memories (salience up, decay resisted)
  totalrecall recall  [--server URL] [--scope S] [--depth N] [--wait 10s] [--json] ID... | --query TEXT
                                                               total recall from memories, waiting for it
  totalrecall scopes  [--server URL] [--json]                   list the scopes
  totalrecall hook session-start|user-prompt-submit|stop|session-end [--server URL] [--scope S]
                      [--budget 2s] [--audit-every 20] [--record=true] [--flashbacks 3] [--log FILE]
                                                               a coding agent's hook (JSON on stdin)
  totalrecall mcp     [--server URL] [--scope S] [--instance ID] [--channels[=false]]
                                                               the MCP server on stdio, bridged to --server
  The server: --server, else $TOTALRECALL_SERVER, else http://127.0.0.1:8080; the key: $TOTALRECALL_KEY.
  The scope: --scope (an id or a name), else $TOTALRECALL_SCOPE (hook and mcp: else the project
  folder's name); store, hook and mcp create a scope of an unused name.
`

// Run runs a client command (args[0] is its name).
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || !IsCommand(args[0]) {
		return fmt.Errorf("not a client command: %v", args)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, args, stdin, stdout, stderr)
	var he *helpError
	if errors.As(err, &he) {
		fmt.Fprintf(stderr, "Usage of %s:\n%s", he.name, he.help)
	}
	return err
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	switch args[0] {
	case "hook":
		return hookCmd(ctx, args[1:], stdin, stdout, stderr)
	case "mcp":
		return mcpCmd(ctx, args[1:], stdin, stdout, stderr)
	case "scopes":
		return scopesCmd(ctx, args[1:], stdout)
	case "store":
		return storeCmd(ctx, args[1:], stdin, stdout)
	case "search":
		return searchCmd(ctx, args[1:], stdout)
	case "claim":
		return claimCmd(ctx, args[1:], stdout)
	}
	return recallCmd(ctx, args[1:], stdout)
}

// parse parses flags wherever they stand among the arguments and returns the others.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &helpError{name: fs.Name(), help: flagHelp(fs)}
			}
			return nil, fmt.Errorf("%s: %v", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return rest, nil
		}
		if args[0] == "--" {
			return append(rest, args[1:]...), nil
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
}

// helpError is -h: Run prints the flags on standard error, as the other commands do.
type helpError struct{ name, help string }

func (e *helpError) Error() string { return e.name + ": " + flag.ErrHelp.Error() }
func (e *helpError) Unwrap() error { return flag.ErrHelp }

// flagHelp lists the flags as the flag package does, defaults included.
func flagHelp(fs *flag.FlagSet) string {
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return b.String()
}

func serverFlag(fs *flag.FlagSet) *string {
	return fs.String("server", "", "the server, http://HOST:PORT; unset: $TOTALRECALL_SERVER, else "+client.DefaultServer)
}

func hookCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("hook: name the event: %s", strings.Join(hook.Events, ", "))
	}
	event := args[0]
	fs := flag.NewFlagSet("hook "+event, flag.ContinueOnError)
	server := serverFlag(fs)
	scope := fs.String("scope", "", "the scope, id or name; unset: $TOTALRECALL_SCOPE, else the project folder's name")
	budget := fs.Duration("budget", hook.DefaultBudget, "answer nothing past this")
	every := fs.Int("audit-every", hook.DefaultAuditEvery, "stop: ask what you refuse to lose every N turns (0: never)")
	record := fs.Bool("record", true, "record each turn's prompt and final answer as memories; unset: off when $TOTALRECALL_RECORD is off")
	flashbacks := fs.Int("flashbacks", hook.DefaultFlashbacks, "user-prompt-submit: how many memories resonate with the prompt")
	logFile := fs.String("log", "", "also append problems to this file; unset: $TOTALRECALL_HOOK_LOG")
	rest, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("hook %s: unexpected arguments %q (the hook's JSON comes on stdin)", event, rest)
	}
	if *every < 0 {
		return fmt.Errorf("hook %s: --audit-every must not be negative", event)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["record"] {
		*record = hook.RecordDefault()
	}
	if *logFile == "" {
		*logFile = os.Getenv("TOTALRECALL_HOOK_LOG")
	}
	return hook.Run(ctx, event, stdin, stdout, hook.Options{Client: client.FromEnv(*server), Scope: *scope, Budget: *budget,
		AuditEvery: *every, Record: *record, Flashbacks: *flashbacks, Log: stderr, LogFile: *logFile})
}

// triBool is a flag that may be left unset.
type triBool struct{ v *bool }

func (t *triBool) String() string {
	if t.v == nil {
		return ""
	}
	return fmt.Sprint(*t.v)
}

func (t *triBool) Set(s string) error {
	var b bool
	switch strings.ToLower(s) {
	case "true", "1", "yes", "on", "":
		b = true
	case "false", "0", "no", "off":
	default:
		return fmt.Errorf("want true or false, not %q", s)
	}
	t.v = &b
	return nil
}

func (t *triBool) IsBoolFlag() bool { return true }

func mcpCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	server := serverFlag(fs)
	scope := fs.String("scope", "", "the scope, id or name; unset: $TOTALRECALL_SCOPE, else the project folder's name")
	instance := fs.String("instance", "", "the mind instance; unset: $CLAUDE_CODE_SESSION_ID")
	var channels triBool
	fs.Var(&channels, "channels", "push notifications as Claude Code channel notifications (default: when the client declares it)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("mcp: unexpected arguments %q", rest)
	}
	if *instance == "" {
		*instance = os.Getenv("CLAUDE_CODE_SESSION_ID")
	}
	ref := hook.ScopeRef(*scope, "")
	return client.FromEnv(*server).BridgeMCP(ctx, stdin, stdout, client.BridgeOptions{Scope: ref, Instance: *instance,
		Channels: channels.v, Log: stderr})
}

// timeout bounds a command's calls.
const timeout = 2 * time.Minute
