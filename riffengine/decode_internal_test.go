package riffengine

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/como-technologies/riff/riffstate"
)

// decodeAgrees decodes body into a zero T with decodeBody and with
// json.Unmarshal: the same error or none, and the same value.
func decodeAgrees[T any](t *testing.T, body []byte) {
	t.Helper()
	var got, want T
	err := decodeBody(body, &got)
	wantErr := json.Unmarshal(body, &want)
	if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("decodeBody(%q) gives the error %v; json.Unmarshal %v", body, err, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeBody(%q) gives\n%#v\njson.Unmarshal\n%#v", body, got, want)
	}
}

var decodeSeeds = []string{
	`{"me":"riff://u1@h/o/repo?session=s0001","item":"item-1"}`,
	`{"me":"riff://u1@h/o/repo?session=s0001","thread":"chat","item":"item-1"}`,
	`{"me":"riff://u1@h/o/repo?session=s0001\u0026claim=x","item":"item-1"}`,
	`{"me":"riff://u1@h","item":""}`,
	`{"ME":"riff://u1@h","Item":"a"}`,
	`{"me":"riff://u1@h","item":"a","item":"b"}`,
	`{"me":null}`,
	`{}`,
	``,
}

// The bodies of the steady calls take the fast path.
func TestGivenTheBodiesOfClaimAndReleaseWhenDecodedThenTheyTakeTheFastPath(t *testing.T) {
	body := []byte(decodeSeeds[0])
	if !decodeFast(body, new(riffstate.Claim)) {
		t.Errorf("a claim of %s takes the slow path", body)
	}
	if !decodeFast(body, new(riffstate.Release)) {
		t.Errorf("a release of %s takes the slow path", body)
	}
	if decodeFast(body, new(riffstate.Register)) {
		t.Errorf("a register has a fast path")
	}
}

func TestGivenBodiesWhenDecodedThenTheyAreWhatJSONUnmarshalGives(t *testing.T) {
	for _, body := range decodeSeeds {
		decodeAgrees[riffstate.Claim](t, []byte(body))
		decodeAgrees[riffstate.Release](t, []byte(body))
		decodeAgrees[riffstate.Register](t, []byte(body))
	}
}

// FuzzDecodeBodyIsJSONUnmarshal decodes any bytes as the commands of
// the steady calls with decodeBody and with json.Unmarshal.
func FuzzDecodeBodyIsJSONUnmarshal(f *testing.F) {
	for _, body := range decodeSeeds {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		decodeAgrees[riffstate.Claim](t, body)
		decodeAgrees[riffstate.Release](t, body)
	})
}
