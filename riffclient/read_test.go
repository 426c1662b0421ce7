package riffclient

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/como-technologies/riff/riffcore/wire"
)

// TestGivenAThreadWithMorePagesWhenReadAllReadsThenThePageHoldsEachMessageInOrder:
// riff read shows each unread message of a thread, also past the first
// page of the server: ReadAll reads each next page after the last one.
func TestGivenAThreadWithMorePagesWhenReadAllReadsThenThePageHoldsEachMessageInOrder(t *testing.T) {
	var afters []uint64
	c, _, _, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		var read wire.Read
		if err := decodeJSON(r.Body, &read); err != nil {
			t.Error(err)
		}
		afters = append(afters, read.After)
		w.Header().Set(wire.HeaderBuild, buildA)
		page := wire.ThreadPage{Thread: "acme/app"}
		switch read.After {
		case 0:
			page.Messages, page.Last, page.More = []wire.Message{{Seq: 1}, {Seq: 2}}, 2, true
		case 2:
			page.Messages, page.Last, page.More = []wire.Message{{Seq: 3}}, 3, true
		case 3:
			// The last page: nothing after 3.
		}
		_ = json.NewEncoder(w).Encode(wire.ReadReply{Threads: []wire.ThreadPage{page, {Thread: "chat", Messages: []wire.Message{{Seq: 9}}}}})
	})
	r, err := ReadAll(context.Background(), c, wire.Read{Thread: "acme/app"})
	if err != nil {
		t.Fatal(err)
	}
	var seqs []uint64
	for _, m := range r.Threads[0].Messages {
		seqs = append(seqs, m.Seq)
	}
	if len(seqs) != 3 || seqs[0] != 1 || seqs[2] != 3 || r.Threads[0].More || len(r.Threads[1].Messages) != 1 {
		t.Errorf("ReadAll gave the pages %+v; want the messages 1, 2, 3 of acme/app with no more, and chat as it came", r.Threads)
	}
	if len(afters) != 3 || afters[1] != 2 || afters[2] != 3 {
		t.Errorf("ReadAll read after %v; want 0, 2, 3", afters)
	}
}
