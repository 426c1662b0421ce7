package riffstate

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// wantRows is the permits table of the seed, written out again: the
// classes that can send each kind, and what a worker cannot do.
func wantRows() map[record.Command]Row {
	var (
		person  = []record.Class{record.ClassPerson}
		session = []record.Class{record.ClassSession}
		both    = []record.Class{record.ClassPerson, record.ClassSession}
		server  = []record.Class{record.ClassServer}
	)
	return map[record.Command]Row{
		"register": {Classes: both}, "start": {Classes: session}, "end": {Classes: session},
		"join": {Classes: both}, "leave": {Classes: both}, "post": {Classes: both},
		"claim": {Classes: both}, "release": {Classes: both}, "release_for": {Classes: session},
		"lead": {Classes: person}, "pause": {Classes: both}, "resume": {Classes: both},
		"hold":     {Classes: both, Worker: "hold an item. Tell the lead."},
		"free":     {Classes: both, Worker: "free an item. Tell the lead."},
		"plan":     {Classes: both, Worker: "send plan. Tell the lead."},
		"plan_off": {Classes: both, Worker: "send plan_off. Tell the lead."},
		"notes":    {Classes: both, Worker: "write the notes of the lead. Tell the lead."},
		"set_idle": {Classes: person},
		"invite":   {Classes: person}, "remove": {Classes: person}, "set_admin": {Classes: person},
		"pass_owner": {Classes: person}, "take_owner": {Classes: person}, "deny_owner": {Classes: person},
		"revoke": {Classes: person}, "admit": {Classes: []record.Class{record.ClassSignIn}},
		"make_riff": {Classes: server}, "announce": {Classes: server}, "remind_lead": {Classes: server}, "forget": {Classes: server},
		"import": {Classes: server}, "grant_owner": {Classes: server}, "end_owner": {Classes: server},
		"name_owner": {Classes: server},
	}
}

func TestEachCommandKindHasARowInThePermitsTable(t *testing.T) {
	table := Table()
	for _, kind := range record.Commands() {
		if _, ok := table[kind]; !ok {
			t.Errorf("the command kind %s has no row in Table()", kind)
		}
	}
	for kind := range table {
		if !slices.Contains(record.Commands(), kind) {
			t.Errorf("Table() has a row for %s, which is no command kind of record.Commands()", kind)
		}
	}
}

func TestThePermitsTableIsTheTableOfTheSeed(t *testing.T) {
	if diff := cmp.Diff(wantRows(), Table()); diff != "" {
		t.Errorf("Table() (-want +got):\n%s", diff)
	}
}

func TestPermitsRunsEachKindAsEachClassWorkerMarkAndRole(t *testing.T) {
	classes := []record.Class{record.ClassSession, record.ClassPerson, record.ClassSignIn, record.ClassServer, record.ClassOther}
	roles := []Role{Member, Admin, Owner}
	rows := wantRows()
	for _, kind := range record.Commands() {
		row, ok := rows[kind]
		if !ok {
			t.Errorf("the test has no row for %s", kind)
			continue
		}
		for _, class := range classes {
			for _, worker := range []bool{false, true} {
				for _, role := range roles {
					for _, needs := range roles {
						c := Caller{URI: uri("ann/wrk1"), Class: class, Worker: worker, Role: role}
						err := Permits(kind, c, needs)
						hasRole := class == record.ClassPerson || class == record.ClassSession || class == record.ClassSignIn
						want := slices.Contains(row.Classes, class) &&
							!(worker && row.Worker != "") &&
							!(hasRole && role < needs)
						if (err == nil) != want {
							t.Errorf("Permits(%s, %s worker=%v role=%s, needs %s) = %v; want allowed=%v", kind, class, worker, role, needs, err, want)
						}
						var refused *wire.Refused
						if err != nil && (!errors.As(err, &refused) || refused.Code != wire.NotAllowed) {
							t.Errorf("Permits(%s, %s) = %v; want the code not_allowed", kind, class, err)
						}
					}
				}
			}
		}
	}
}

func TestThePermitsReasonsAreTheTextsOfTheSeed(t *testing.T) {
	person := Caller{URI: uri("ann"), Class: record.ClassPerson, Role: Member}
	session := Caller{URI: uri("ann/wrk1"), Class: record.ClassSession, Role: Member}
	worker := session.AsWorker()
	for _, tc := range []struct {
		kind   record.Command
		caller Caller
		needs  Role
		want   string
	}{
		{"hold", worker, Member, "a worker cannot hold an item. Tell the lead."},
		{"free", worker, Member, "a worker cannot free an item. Tell the lead."},
		{"lead", session, Member, LeadByPerson},
		{"forget", session, Member, "a session cannot send the command forget"},
		{"start", person, Member, "a person cannot send the command start"},
		{"admit", person, Member, "a person cannot send the command admit"},
		{"claim", Caller{Class: record.ClassServer}, Member, "the server cannot send the command claim"},
		{"claim", Caller{Class: record.ClassOther}, Member, "a caller of another build cannot send the command claim"},
		{"set_idle", person, Admin, "ann is not an admin; only an admin can change the settings of idle workers"},
		{"pause", person, Admin, "ann is not an admin; only the owner or an admin can pause the whole riff or a repository by its name"},
		{"resume", person, Admin, "ann is not an admin; only the owner or an admin can resume the whole riff or a repository by its name"},
		{"invite", person, Admin, "ann is not an admin; only an admin can invite a person"},
		{"remove", person, Admin, "ann is not an admin; only an admin can remove a person"},
		{"take_owner", person, Admin, "ann is not an admin; only an admin can take the owner role"},
		{"revoke", person, Admin, "ann is not an admin; only an admin revokes another person"},
		{"set_admin", person.With(Admin), Owner, "ann is not the owner; only the owner adds or removes an admin"},
		{"pass_owner", person.With(Admin), Owner, "ann is not the owner; only the owner passes the owner role"},
		{"deny_owner", person.With(Admin), Owner, "ann is not the owner; only the owner denies the owner role"},
		{"claim", session, Owner, "ann is not the owner; the command claim needs it"},
		{"claim", session, Admin, "ann is not an admin; the command claim needs an admin"},
	} {
		t.Run(fmt.Sprintf("%s as %s", tc.kind, tc.caller.Class), func(t *testing.T) {
			err := Permits(tc.kind, tc.caller, tc.needs)
			if err == nil || err.Error() != tc.want {
				t.Errorf("Permits(%s) = %v; want %q", tc.kind, err, tc.want)
			}
		})
	}
	if !strings.Contains(LeadByPerson, "a session cannot name the lead, also not itself") {
		t.Errorf("LeadByPerson = %q; want the text of the guide", LeadByPerson)
	}
	if err := Permits("shout", session, Member); err == nil {
		t.Error("Permits of a kind with no row allowed it")
	}
}

func TestAWorkerCanSendEachCommandOfTheWorkButHoldFreePlanAndNotes(t *testing.T) {
	worker := Caller{URI: uri("ann/wrk1"), Class: record.ClassSession, Worker: true}
	for _, kind := range []record.Command{"register", "start", "end", "join", "leave", "post", "claim", "release", "release_for", "pause", "resume"} {
		if err := Permits(kind, worker, Member); err != nil {
			t.Errorf("Permits(%s, worker) = %v; want allowed", kind, err)
		}
	}
}

// TestASignalCannotReachTheRiff is the compile_fail twin of the seed:
// Signal.Set takes the presence, and a program that gives it a riff does
// not build. Its twin differs in that one line and builds.
func TestASignalCannotReachTheRiff(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the twins")
	}
	build := func(dir string) (string, error) {
		cmd := exec.Command(goBin, "build", "-o", os.DevNull, ".")
		cmd.Dir = filepath.Join("testdata", dir)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	t.Run("the riff does not compile", func(t *testing.T) {
		t.Parallel()
		out, err := build("signalriff")
		if err == nil {
			t.Fatal("testdata/signalriff built: a signal reached the riff")
		}
		if !strings.Contains(out, "cannot use riff (variable of type *riffstate.Riff) as *riffstate.Presence value") {
			t.Errorf("go build gave %q; want the type mismatch of *riffstate.Riff and *riffstate.Presence", out)
		}
	})
	t.Run("the presence compiles", func(t *testing.T) {
		t.Parallel()
		if out, err := build("signalpresence"); err != nil {
			t.Errorf("testdata/signalpresence does not build: %v\n%s", err, out)
		}
	})
}

// TestEachCommandTypeHasAKindConstantWithARowInThePermitsTable reads the
// source of the package: each type with a method Kind (a command) returns
// a constant of record.Command, not a text, and that kind is a kind of
// record.Commands() with a row in the permits table. A new command with
// no row, or with its kind written as a bare string, fails here.
func TestEachCommandTypeHasAKindConstantWithARowInThePermitsTable(t *testing.T) {
	values := commandConstants(t, "../riffcore/record/commands.go")
	table := Table()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatalf("parse the package: %v", err)
	}
	found := 0
	for _, file := range pkgs["riffstate"].Files {
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "Kind" {
				continue
			}
			found++
			where := fset.Position(fn.Pos())
			ret, ok := fn.Body.List[len(fn.Body.List)-1].(*ast.ReturnStmt)
			if len(fn.Body.List) != 1 || !ok || len(ret.Results) != 1 {
				t.Errorf("%s: Kind is one return of a constant of record.Command", where)
				continue
			}
			sel, _ := ret.Results[0].(*ast.SelectorExpr)
			if pkg, ok := selectorPackage(sel); !ok || pkg != "record" {
				t.Errorf("%s: Kind returns %s; want a constant record.CommandX", where, types.ExprString(ret.Results[0]))
				continue
			}
			kind, ok := values[sel.Sel.Name]
			if !ok {
				t.Errorf("%s: Kind returns record.%s, which is no command kind of record/commands.go", where, sel.Sel.Name)
				continue
			}
			if !slices.Contains(record.Commands(), kind) {
				t.Errorf("%s: the kind %s is not in record.Commands()", where, kind)
			}
			if _, ok := table[kind]; !ok {
				t.Errorf("%s: the kind %s has no row in the permits table", where, kind)
			}
		}
	}
	if found < 20 {
		t.Errorf("the test found %d methods Kind; want each command of the package (more than 20)", found)
	}
}

// selectorPackage gives X of a selector X.Sel when X is a name.
func selectorPackage(sel *ast.SelectorExpr) (string, bool) {
	if sel == nil {
		return "", false
	}
	ident, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", false
	}
	return ident.Name, true
}

// commandConstants reads the constants of record.Command of a file: each
// name and its kind.
func commandConstants(t *testing.T, path string) map[string]record.Command {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	out := map[string]record.Command{}
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			if ident, ok := vs.Type.(*ast.Ident); !ok || ident.Name != "Command" || len(vs.Values) != len(vs.Names) {
				continue
			}
			for i, n := range vs.Names {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
					text, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatalf("%s: the constant %s: %v", path, n.Name, err)
					}
					out[n.Name] = record.Command(text)
				}
			}
		}
	}
	if len(out) != len(record.Commands()) {
		t.Fatalf("%s has %d constants of Command; record.Commands() lists %d", path, len(out), len(record.Commands()))
	}
	return out
}
