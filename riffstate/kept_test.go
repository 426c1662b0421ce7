package riffstate

import (
	"slices"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
)

// keptSeqs gives the seqs of the kept messages of th.
func keptSeqs(r *Riff, th name.Thread) []uint64 {
	var seqs []uint64
	for _, m := range r.Threads[th].Messages {
		seqs = append(seqs, m.Seq)
	}
	return seqs
}

// lastSeqs gives the seqs from max(1, n-KeptMessages+1) to n.
func lastSeqs(n uint64) []uint64 {
	var seqs []uint64
	for seq := max(1, int64(n)-KeptMessages+1); seq <= int64(n); seq++ {
		seqs = append(seqs, uint64(seq))
	}
	return seqs
}

// TestGivenAThreadWhenPostsComePastItsKeptMessagesThenItKeepsTheLastOnesInOrder:
// at each post, through several moves of the kept messages in their
// array, a thread keeps its last KeptMessages messages, oldest first,
// and so does a clone of it, which its posts and those of the riff
// it came from leave apart.
func TestGivenAThreadWhenPostsComePastItsKeptMessagesThenItKeepsTheLastOnesInOrder(t *testing.T) {
	const th = name.Thread("o/repo")
	r := NewRiff()
	var clone *Riff
	const posts = 5*KeptMessages + 37
	for seq := uint64(1); seq <= posts; seq++ {
		Apply(r, postRec("ann/a001", string(th), seq, "m"))
		if got, want := keptSeqs(r, th), lastSeqs(seq); !slices.Equal(got, want) {
			t.Fatalf("after post %d the thread keeps the seqs %v; want %v", seq, got, want)
		}
		if seq == 2*KeptMessages+11 {
			clone = r.clone()
		}
	}
	// The clone moves on from post 2*KeptMessages+11, in an array of its
	// own: the riff's posts since then did not reach it, and its posts do
	// not reach the riff.
	at := uint64(2*KeptMessages + 11)
	if got, want := keptSeqs(clone, th), lastSeqs(at); !slices.Equal(got, want) {
		t.Fatalf("the clone of post %d keeps the seqs %v; want %v", at, got, want)
	}
	for seq := at + 1; seq <= posts+3*KeptMessages; seq++ {
		Apply(clone, postRec("ann/a001", string(th), seq, "m"))
		if got, want := keptSeqs(clone, th), lastSeqs(seq); !slices.Equal(got, want) {
			t.Fatalf("after post %d the clone keeps the seqs %v; want %v", seq, got, want)
		}
	}
	if got, want := keptSeqs(r, th), lastSeqs(posts); !slices.Equal(got, want) {
		t.Fatalf("after the posts to its clone the riff keeps the seqs %v; want %v", got, want)
	}
}

// TestGivenAThreadFromACheckpointWhenPostsComeThenItKeepsTheLastOnes: a
// thread read from a checkpoint, whose messages lie in an array that is
// not the thread's own, keeps its last messages through its first move
// and after it; and so does a thread that kept more than KeptMessages.
func TestGivenAThreadFromACheckpointWhenPostsComeThenItKeepsTheLastOnes(t *testing.T) {
	for _, kept := range []int{0, 1, KeptMessages - 1, KeptMessages, KeptMessages + 5} {
		th := &Thread{Name: "o/repo", Members: map[string]uint64{}}
		for seq := uint64(1); seq <= uint64(kept); seq++ {
			th.Messages = append(th.Messages, Message{Posted: record.Posted{Thread: "o/repo", Seq: seq}})
		}
		th.Messages = slices.Clip(th.Messages)
		th.LastSeq = uint64(kept)
		r := NewRiff()
		r.Threads["o/repo"] = th
		for seq := uint64(kept) + 1; seq <= uint64(kept)+3*KeptMessages; seq++ {
			Apply(r, postRec("ann/a001", "o/repo", seq, "m"))
			// A thread that kept more than KeptMessages drops the rest at
			// its first post.
			if got, want := keptSeqs(r, "o/repo"), lastSeqs(seq); !slices.Equal(got, want) {
				t.Fatalf("a thread read with %d messages, after post %d, keeps the seqs %v; want %v", kept, seq, got, want)
			}
		}
	}
}

// TestGivenAThreadThatKeptItsMessagesWhenAPostComesThenNothingIsAllocated:
// past KeptMessages, a post moves the kept messages in the array of
// the thread and allocates nothing.
func TestGivenAThreadThatKeptItsMessagesWhenAPostComesThenNothingIsAllocated(t *testing.T) {
	th := &Thread{Name: "o/repo", Members: map[string]uint64{}}
	seq := uint64(0)
	post := func() {
		seq++
		th.keepMessage(Message{Posted: record.Posted{Thread: "o/repo", Seq: seq}})
	}
	for range KeptMessages + 1 {
		post()
	}
	// One run of many posts, through several moves: AllocsPerRun gives
	// a whole number a run.
	posts := func() {
		for range 3 * KeptMessages {
			post()
		}
	}
	if allocs := testing.AllocsPerRun(1, posts); allocs != 0 {
		t.Errorf("%d posts to a thread that kept %d messages allocate %.0f times; want 0", 3*KeptMessages, KeptMessages, allocs)
	}
	if len(th.Messages) != KeptMessages || th.Messages[KeptMessages-1].Seq != seq || th.Messages[0].Seq != seq-KeptMessages+1 {
		t.Errorf("the thread keeps %d messages, seqs %d to %d; want %d, %d to %d", len(th.Messages),
			th.Messages[0].Seq, th.Messages[len(th.Messages)-1].Seq, KeptMessages, seq-KeptMessages+1, seq)
	}
}
