package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
)

// log verify of one flipped bit prints the damage and the first break,
// and one line for the chunks that it leaves unchecked.
func TestGivenOneFlippedBitWhenLogVerifyRunsThenItPrintsTwoProblemsAndTheChunksLeft(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	var r rifflog.Replayed
	for range 6 {
		lines := [][]byte{
			fmt.Appendf(nil, `{"position":%d,"by":{"server":"a"},"command":"x","change":{"noted":{}}}`, r.Last+1),
			fmt.Appendf(nil, `{"position":%d,"by":{"server":"a"},"command":"x","change":{"noted":{}}}`, r.Last+2),
		}
		w, err := rifflog.Write(ctx, st, r.Next(lines))
		if err != nil {
			t.Fatal(err)
		}
		r = rifflog.Replayed{Last: w.Last(), Chain: w.Chain()}
	}
	name := rifflog.ChunkName(3)
	data, _ := st.Get(ctx, name)
	data = bytes.Clone(data)
	data[bytes.LastIndex(data, []byte(`"a"`))+1] ^= 0x01
	_ = st.Delete(ctx, name)
	if err := st.Put(ctx, name, data); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := logVerify(ctx, st, &out)
	if err == nil || !strings.Contains(err.Error(), "2 problems") {
		t.Errorf("logVerify = %v; want the 2 problems", err)
	}
	text := out.String()
	if n := strings.Count(text, "problem: "); n != 2 {
		t.Errorf("logVerify printed %d problem lines; want 2:\n%s", n, text)
	}
	want := "not checked: 4 chunks from the break on, log/00000000000000000005.jsonl to log/00000000000000000011.jsonl (positions 5 to 12)"
	if !strings.Contains(text, want) {
		t.Errorf("logVerify printed:\n%s\nwant the line %q", text, want)
	}
}
