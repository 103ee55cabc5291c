// Package clitest helps the commands' tests check what their help says
// against their code.
package clitest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// exitName is the name of an exit code constant of package cli.
var exitName = regexp.MustCompile(`^Exit[A-Z]\w*$`)

// ExitCodes lists, sorted, every exit code the code of the package in dir
// (its non-test files) uses: each cli.Exit* constant it names outside a
// const declaration (a package's own ExitOK = cli.ExitOK counts only where
// it is used), with the constants' values read from package cli's source.
func ExitCodes(t testing.TB, dir string) []int {
	t.Helper()
	values := cliExits(t)
	var codes []int
	for _, f := range parseDir(t, dir) {
		ast.Inspect(f, func(n ast.Node) bool {
			if d, ok := n.(*ast.GenDecl); ok && d.Tok == token.CONST {
				return false
			}
			id, ok := n.(*ast.Ident)
			if !ok || !exitName.MatchString(id.Name) {
				return true
			}
			v, ok := values[id.Name]
			if !ok {
				t.Fatalf("%s: %s is not an exit code constant of package cli", dir, id.Name)
			}
			if !slices.Contains(codes, v) {
				codes = append(codes, v)
			}
			return true
		})
	}
	slices.Sort(codes)
	return codes
}

// cliExits reads the values of package cli's Exit* constants.
func cliExits(t testing.TB) map[string]int {
	_, self, _, _ := runtime.Caller(0)
	out := map[string]int{}
	for _, f := range parseDir(t, filepath.Dir(filepath.Dir(self))) {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if lit, ok := valueAt(vs, i).(*ast.BasicLit); ok && exitName.MatchString(name.Name) && lit.Kind == token.INT {
						n, _ := strconv.Atoi(lit.Value)
						out[name.Name] = n
					}
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("package cli declares no exit code")
	}
	return out
}

func valueAt(vs *ast.ValueSpec, i int) ast.Expr {
	if i < len(vs.Values) {
		return vs.Values[i]
	}
	return nil
}

// parseDir parses the non-test Go files in dir.
func parseDir(t testing.TB, dir string) []*ast.File {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no Go files in %s (%v)", dir, err)
	}
	var out []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// HelpExitCodes lists the exit codes a command's help lists under its
// "exit codes of" heading, in order.
func HelpExitCodes(help string) []int {
	_, section, ok := strings.Cut(help, "\nexit codes of ")
	if !ok {
		return nil
	}
	var codes []int
	for _, m := range regexp.MustCompile(`(?m)^  (\d+) `).FindAllStringSubmatch(section, -1) {
		n, _ := strconv.Atoi(m[1])
		codes = append(codes, n)
	}
	return codes
}
