package riffengine

import (
	"bytes"
	"encoding/json"

	"github.com/como-technologies/riff/riffcore/wire"
)

// The replies of a claim and a release written by hand, byte for byte
// what json.Encoder with SetEscapeHTML(false) writes for them
// (TestTheRepliesByHandAreTheBytesOfTheEncoder). The holder's URI
// carries each claim of its session: encoding/json would scan and
// compact again the JSON that its MarshalJSON gives, a pass that grows
// with the claims (30 % of the CPU of a claim by a session with 1,000
// claims; docs/performance.md, "The pile-up").

// appendReply appends the JSON of v and a newline when v is a reply that
// has a form by hand; ok is false for any other value.
func appendReply(dst []byte, v any) (out []byte, ok bool) {
	switch r := v.(type) {
	case wire.ClaimReply:
		holder, err := r.Holder.MarshalJSON()
		if err != nil {
			return dst, false
		}
		dst = append(dst, `{"holder":`...)
		dst = append(dst, holder...)
		if r.Warning != "" {
			dst = append(dst, `,"warning":`...)
			dst = appendJSONString(dst, r.Warning)
		}
		dst = append(dst, `,"text":`...)
		dst = appendJSONString(dst, r.Text)
		return append(dst, "}\n"...), true
	case wire.ReleaseReply:
		uri, err := r.URI.MarshalJSON()
		if err != nil {
			return dst, false
		}
		dst = append(dst, `{"uri":`...)
		dst = append(dst, uri...)
		if r.MustClear {
			dst = append(dst, `,"must_clear":true`...)
		}
		dst = append(dst, `,"text":`...)
		dst = appendJSONString(dst, r.Text)
		return append(dst, "}\n"...), true
	}
	return dst, false
}

// appendJSONString appends s as encoding/json writes a string with no
// escape of HTML: the plain ASCII by itself, anything else by the
// encoder (control characters, quotes, U+2028, bytes that are not
// UTF-8).
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s) // a string always encodes
			return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
