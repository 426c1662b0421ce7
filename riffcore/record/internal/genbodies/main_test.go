package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The readers of the bodies of package record are what the struct tags
// give: go generate in riffcore/record writes them again.
func TestBodiesAreGenerated(t *testing.T) {
	dir := filepath.Join("..", "..")
	want, err := generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "bodies_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("riffcore/record/bodies_gen.go is not what the struct tags give: run go generate in riffcore/record")
	}
}
