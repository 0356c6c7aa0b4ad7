// Command apidoc renders docs/api.md from the GraphQL schema (schema/*.graphqls): every query,
// mutation and subscription with its signature and its description — what it does, the line
// "Errors: CODE, CODE." and an example in a ```graphql block — grouped by schema file, then the
// types each file defines. It runs from the repository's root (go generate runs it from
// resolvers/, see resolver.go), so the manual cannot drift from the contract:
//
//	go run ./scripts/apidoc [-schema schema] [-out docs/api.md]
//
// Each schema file opens with a comment: its first line is the title of the file's section of
// the manual, the lines up to the first blank one its introduction (a file without one gets a
// section named after it).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
	"github.com/vektah/gqlparser/v2/parser"
)

func main() {
	dir := flag.String("schema", "schema", "folder of the *.graphqls files")
	out := flag.String("out", filepath.Join("docs", "api.md"), "file to write")
	flag.Parse()
	files, err := readSchema(*dir)
	if err == nil {
		var doc []byte
		if doc, err = render(files); err == nil {
			err = os.WriteFile(*out, doc, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "apidoc:", err)
		os.Exit(1)
	}
}

// schemaFile is one *.graphqls file: its section of the manual.
type schemaFile struct {
	name  string // base name, e.g. schema.graphqls
	title string
	intro string
	doc   *ast.SchemaDocument
}

// Operation is one field of Query, Mutation or Subscription.
type Operation struct {
	Root  string // Query, Mutation or Subscription
	Field *ast.FieldDefinition
	File  string
}

// roots are the operation types, in the order the manual lists them.
var roots = []string{"Query", "Mutation", "Subscription"}

// readSchema parses every *.graphqls file of dir, the core contract (schema.graphqls) first and
// the others by name.
func readSchema(dir string) ([]*schemaFile, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.graphqls"))
	if err != nil {
		return nil, err
	}
	slices.SortFunc(paths, func(a, b string) int {
		ca, cb := filepath.Base(a) == "schema.graphqls", filepath.Base(b) == "schema.graphqls"
		switch {
		case ca && !cb:
			return -1
		case cb && !ca:
			return 1
		}
		return strings.Compare(a, b)
	})
	var out []*schemaFile
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		doc, gerr := parser.ParseSchema(&ast.Source{Name: p, Input: string(raw)})
		if gerr != nil {
			return nil, gerr
		}
		f := &schemaFile{name: filepath.Base(p), doc: doc}
		f.title, f.intro = header(string(raw))
		if f.title == "" {
			// A file without its comment still gets its section, named after it.
			f.title = "Defined in " + f.name
		}
		out = append(out, f)
	}
	return out, nil
}

// header returns the first line of the comment a schema file opens with and the lines after it
// up to the first blank line, joined.
func header(src string) (title, intro string) {
	var lines []string
	for _, l := range strings.Split(src, "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "#") {
			break
		}
		lines = append(lines, strings.TrimSpace(strings.TrimPrefix(l, "#")))
	}
	if len(lines) == 0 {
		return "", ""
	}
	return strings.TrimSuffix(lines[0], "."), strings.Join(lines[1:], " ")
}

// operations returns the operations a file defines or extends, by root in schema order.
func (f *schemaFile) operations() []Operation {
	var out []Operation
	for _, root := range roots {
		for _, list := range []ast.DefinitionList{f.doc.Definitions, f.doc.Extensions} {
			for _, d := range list {
				if d.Name != root {
					continue
				}
				for _, fd := range d.Fields {
					out = append(out, Operation{Root: root, Field: fd, File: f.name})
				}
			}
		}
	}
	return out
}

// Operations lists every operation of the files, in the manual's order.
func Operations(files []*schemaFile) []Operation {
	var out []Operation
	for _, f := range files {
		out = append(out, f.operations()...)
	}
	return out
}

// errorsLine is the line every operation's description carries.
var errorsLine = regexp.MustCompile(`(?m)^Errors: [A-Z_]+(, [A-Z_]+)*\.$`)

// exampleBlock finds the ```graphql example of a description.
var exampleBlock = regexp.MustCompile("(?s)```graphql\n(.*?)\n```")

// Check returns what an operation's description lacks: a text, the Errors line, an example.
func Check(op Operation) []string {
	d := op.Field.Description
	var miss []string
	if strings.TrimSpace(exampleBlock.ReplaceAllString(errorsLine.ReplaceAllString(d, ""), "")) == "" {
		miss = append(miss, "a description of what it does")
	}
	if !errorsLine.MatchString(d) {
		miss = append(miss, "a line `Errors: CODE, CODE.`")
	}
	if !exampleBlock.MatchString(d) {
		miss = append(miss, "an example in a ```graphql block")
	}
	return miss
}

// Example returns the operation's example (empty when it has none).
func Example(op Operation) string {
	m := exampleBlock.FindStringSubmatch(op.Field.Description)
	if m == nil {
		return ""
	}
	return m[1]
}

const intro = `# GraphQL API

Every query, mutation and subscription of totalrecall's GraphQL API, grouped by purpose, each
with what it does, the error codes it can return and an example. The server answers GraphQL at
` + "`/query`" + ` (POST, or GET for queries) and serves the GraphiQL playground at ` + "`/`" + `; subscriptions
run over websocket (` + "`graphql-transport-ws`" + ` and the legacy ` + "`graphql-ws`" + `) and server-sent events
on the same path. The rules behind the operations — tiers, salience, ranking, the digest — are in
[concepts.md](concepts.md).

This file is generated from the schema's descriptions (` + "`schema/*.graphqls`" + `) by ` + "`go generate ./...`" + `:
edit the schema, not this file.

## Conventions

- **Errors** carry a stable code in ` + "`extensions.code`" + `; ` + "`INVALID_ARGUMENT`" + ` also names the input at
  fault in ` + "`extensions.field`" + `. A refused request writes nothing. The codes: ` + "`NOT_FOUND`" + `,
  ` + "`INVALID_ARGUMENT`" + `, ` + "`CROSS_SCOPE_REFERENCE`" + ` (two ends in different scopes), ` + "`CONFLICT`" + ` (the state
  forbids it, or a ` + "`requestId`" + ` reused with other input), ` + "`FORBIDDEN`" + ` (the artifact's family does not
  allow it), ` + "`HAS_DEPENDENTS`" + `, ` + "`NOT_A_CANDIDATE`" + `, ` + "`NOT_ARCHIVED`" + `, ` + "`SAME_PASS_ARCHIVE_REMOVE`" + ` (digest
  rules), ` + "`UNAVAILABLE`" + ` (a part the call needs is not configured or not reachable), ` + "`DEADLINE_EXCEEDED`" + `, ` + "`CANCELED`" + `; ` + "`INTERNAL`" + ` is a bug. Any operation may
  return ` + "`UNAVAILABLE`" + ` or ` + "`INTERNAL`" + `; the lists below name the others. On servers that split the scopes
  (` + "`serve --serve-scopes`" + `), any operation naming a scope may also return ` + "`SCOPE_NOT_SERVED`" + ` (no server that
  answers serves it) or ` + "`SCOPES_ON_SEVERAL_SERVERS`" + ` (one request naming scopes of two servers); see
  [architecture.md](architecture.md#many-machines-sharding-by-scope).
- **` + "`requestId`" + `**: a command retried with the same ` + "`requestId`" + ` is applied at most once and answers its
  first result; the same ` + "`requestId`" + ` with different input is a ` + "`CONFLICT`" + `. Without one, each call is
  new. **` + "`sessionId`" + `** is the mind's session the message belongs to; both go into the
  TransactionContext of every event the call causes (see ` + "`trace`" + `).
- Ids are UUIDs made by the server. Lists with ` + "`first`" + ` / ` + "`after`" + ` page by cursor: pass the previous
  page's ` + "`endCursor`" + ` while ` + "`hasNextPage`" + `.
`

// render writes the manual page for files.
func render(files []*schemaFile) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(intro)
	b.WriteString("\n## Contents\n\n")
	for _, f := range files {
		var names []string
		for _, op := range f.operations() {
			names = append(names, fmt.Sprintf("[`%s`](#%s)", op.Field.Name, strings.ToLower(op.Field.Name)))
		}
		fmt.Fprintf(&b, "- [%s](#%s): %s\n", f.title, slug(f.title), strings.Join(names, ", "))
	}
	for _, f := range files {
		fmt.Fprintf(&b, "\n## %s\n\n", f.title)
		if f.intro != "" {
			fmt.Fprintf(&b, "%s\n\n", f.intro)
		}
		fmt.Fprintf(&b, "Defined in [`schema/%s`](../schema/%s).\n", f.name, f.name)
		ops := f.operations()
		for _, root := range roots {
			first := true
			for _, op := range ops {
				if op.Root != root {
					continue
				}
				if miss := Check(op); len(miss) > 0 {
					return nil, fmt.Errorf("%s: %s.%s lacks %s", f.name, root, op.Field.Name, strings.Join(miss, ", "))
				}
				if first {
					fmt.Fprintf(&b, "\n### %s\n", map[string]string{"Query": "Queries", "Mutation": "Mutations", "Subscription": "Subscriptions"}[root])
					first = false
				}
				fmt.Fprintf(&b, "\n#### `%s`\n\n```graphql\n%s\n```\n\n", op.Field.Name, signature(op.Field))
				for _, a := range op.Field.Arguments {
					if a.Description != "" {
						fmt.Fprintf(&b, "- `%s`: %s\n", a.Name, oneLine(a.Description))
					}
				}
				if hasArgDocs(op.Field) {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "%s\n", errorsLine.ReplaceAllStringFunc(strings.TrimSpace(op.Field.Description), boldErrors))
			}
		}
		var types bytes.Buffer
		format := func(d *ast.Definition, extension bool) {
			if slices.Contains(roots, d.Name) {
				return
			}
			one := &ast.SchemaDocument{}
			if extension {
				one.Extensions = ast.DefinitionList{d}
			} else {
				one.Definitions = ast.DefinitionList{d}
			}
			if types.Len() > 0 {
				types.WriteString("\n")
			}
			formatter.NewFormatter(&types, formatter.WithIndent("  ")).FormatSchemaDocument(one)
		}
		for _, d := range f.doc.Definitions {
			format(d, false)
		}
		for _, d := range f.doc.Extensions {
			format(d, true)
		}
		if types.Len() > 0 {
			fmt.Fprintf(&b, "\n### Types of this section\n\n```graphql\n%s\n```\n", strings.TrimSpace(types.String()))
		}
	}
	return b.Bytes(), nil
}

// boldErrors renders an Errors line with its codes as code: **Errors:** `NOT_FOUND`, `CONFLICT`.
func boldErrors(line string) string {
	codes := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "Errors: "), "."), ", ")
	for i, c := range codes {
		codes[i] = "`" + c + "`"
	}
	return "**Errors:** " + strings.Join(codes, ", ") + "."
}

func hasArgDocs(f *ast.FieldDefinition) bool {
	for _, a := range f.Arguments {
		if a.Description != "" {
			return true
		}
	}
	return false
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// signature is the operation's SDL without its description: on one line when it is short, one
// argument a line when it is not.
func signature(f *ast.FieldDefinition) string {
	var args []string
	for _, a := range f.Arguments {
		s := a.Name + ": " + a.Type.String()
		if a.DefaultValue != nil {
			s += " = " + a.DefaultValue.String()
		}
		args = append(args, s)
	}
	one := f.Name
	if len(args) > 0 {
		one += "(" + strings.Join(args, ", ") + ")"
	}
	one += ": " + f.Type.String()
	if len(one) <= 100 {
		return one
	}
	return f.Name + "(\n  " + strings.Join(args, "\n  ") + "\n): " + f.Type.String()
}

// slug is the anchor GitHub gives a heading.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
