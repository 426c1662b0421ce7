package signed

import (
	"errors"
	"testing"
)

func TestGivenASignedMessageWhenAReaderChecksItThenEachStepCanRefuseIt(t *testing.T) {
	key, other := newKey(t), newKey(t)
	tp, _ := Thumbprint(&key.PublicKey)
	otherTP, _ := Thumbprint(&other.PublicKey)
	payload := []byte(samplePayload)
	sig, err := Sign(key, payload)
	if err != nil {
		t.Fatal(err)
	}
	undecodable := []byte(`{"lead":"yes"}`)
	badSig, _ := Sign(key, undecodable)
	changed := []byte(samplePayload[:len(samplePayload)-2] + "1}")
	tests := []struct {
		name    string
		sig     string
		payload []byte
		live    []string
		want    error
	}{
		{"a live key", sig, payload, []string{otherTP, tp}, nil},
		{"an ended sign-in", sig, payload, nil, ErrNotLive},
		{"the key of another machine", sig, payload, []string{otherTP}, ErrNotLive},
		{"a changed byte", sig, changed, []string{tp}, ErrSignature},
		{"bytes that do not decode", badSig, undecodable, []string{tp}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Check(tt.sig, tt.payload, tt.live)
			switch {
			case tt.name == "bytes that do not decode":
				if err == nil {
					t.Errorf("Check() = %+v; want the error of Decode", c)
				}
			case tt.want == nil:
				if err != nil || c.User != "mike" || !c.Lead {
					t.Errorf("Check() = %+v, %v; want the content of mike with lead", c, err)
				}
			case !errors.Is(err, tt.want):
				t.Errorf("Check() = %v; want %v", err, tt.want)
			}
		})
	}
}
