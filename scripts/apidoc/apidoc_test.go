package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

const (
	schemaDir = "../../schema"
	apiDoc    = "../../docs/api.md"
)

// TestAPIDocIsGenerated fails when docs/api.md is not what the schema renders: run
// `go generate ./...` (or `go run ./scripts/apidoc`) after changing the schema.
func TestAPIDocIsGenerated(t *testing.T) {
	files, err := readSchema(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := render(files)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(apiDoc)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("docs/api.md is not generated from the schema: run `go generate ./...`")
	}
}

// TestEveryOperationIsDocumented reads the schema as the server loads it and fails for every
// query, mutation and subscription that docs/api.md lacks, whose description lacks what it does,
// its Errors line or an example, or whose example is not a valid request calling it.
func TestEveryOperationIsDocumented(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(schemaDir, "*.graphqls"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no schema files: %v", err)
	}
	var srcs []*ast.Source
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, &ast.Source{Name: p, Input: string(raw)})
	}
	schema, gerr := gqlparser.LoadSchema(srcs...)
	if gerr != nil {
		t.Fatal(gerr)
	}
	doc, err := os.ReadFile(apiDoc)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, root := range []*ast.Definition{schema.Query, schema.Mutation, schema.Subscription} {
		if root == nil {
			continue
		}
		for _, f := range root.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			n++
			op := Operation{Root: root.Name, Field: f}
			if miss := Check(op); len(miss) > 0 {
				t.Errorf("%s.%s: its description lacks %s", root.Name, f.Name, strings.Join(miss, ", "))
				continue
			}
			if !strings.Contains(string(doc), "\n#### `"+f.Name+"`\n") {
				t.Errorf("%s.%s is missing from docs/api.md: run `go generate ./...`", root.Name, f.Name)
			}
			ex := Example(op)
			q, qerr := gqlparser.LoadQuery(schema, ex)
			if qerr != nil {
				t.Errorf("%s.%s: its example is not a valid request: %v\n%s", root.Name, f.Name, qerr, ex)
				continue
			}
			if !calls(q, root.Name, f.Name) {
				t.Errorf("%s.%s: its example does not call it:\n%s", root.Name, f.Name, ex)
			}
		}
	}
	// The schema has more than sixty operations; a count far below means the loop read nothing.
	if n < 60 {
		t.Fatalf("read %d operations from the schema", n)
	}
}

// calls reports whether the request q calls field of root at its top level.
func calls(q *ast.QueryDocument, root, field string) bool {
	for _, op := range q.Operations {
		want := map[string]ast.Operation{"Query": ast.Query, "Mutation": ast.Mutation, "Subscription": ast.Subscription}[root]
		if op.Operation != want {
			continue
		}
		for _, sel := range op.SelectionSet {
			if f, ok := sel.(*ast.Field); ok && f.Name == field {
				return true
			}
		}
	}
	return false
}

// TestCheckNamesWhatIsMissing: a description without an Errors line or an example is caught.
func TestCheckNamesWhatIsMissing(t *testing.T) {
	cases := []struct {
		desc string
		want string
	}{
		{"", "a description of what it does, a line `Errors: CODE, CODE.`, an example in a ```graphql block"},
		{"Does it.\n\n```graphql\n{ x }\n```", "a line `Errors: CODE, CODE.`"},
		{"Does it.\n\nErrors: NOT_FOUND.", "an example in a ```graphql block"},
		{"Errors: NOT_FOUND.\n\n```graphql\n{ x }\n```", "a description of what it does"},
		{"Does it.\n\nErrors: NOT_FOUND, lower.\n\n```graphql\n{ x }\n```", "a line `Errors: CODE, CODE.`"},
		{"Does it.\n\nErrors: NOT_FOUND, CONFLICT.\n\n```graphql\n{ x }\n```", ""},
	}
	for _, c := range cases {
		got := strings.Join(Check(Operation{Field: &ast.FieldDefinition{Name: "x", Description: c.desc}}), ", ")
		if got != c.want {
			t.Errorf("Check(%q) = %q, want %q", c.desc, got, c.want)
		}
	}
}
