package riffengine

import "github.com/como-technologies/riff/riffcore/wire"

// The replies of a claim and a release written by hand, byte for byte
// what json.Encoder with SetEscapeHTML(false) writes for them
// (TestTheRepliesByHandAreTheBytesOfTheEncoder). The holder's URI
// carries each claim of its session: encoding/json would scan and
// compact again the JSON that its MarshalJSON gives, a pass that grows
// with the claims (30 % of the CPU of a claim by a session with 1,000
// claims; docs/performance.md, "The pile-up"). The route of a claim and
// a release writes them from the state under the lock
// (riffstate.AppendReply); this is the form of a reply value.

// appendReply appends the JSON of v and a newline when v is a reply that
// has a form by hand; ok is false for any other value.
func appendReply(dst []byte, v any) (out []byte, ok bool) {
	switch r := v.(type) {
	case wire.ClaimReply:
		return wire.AppendClaimReply(dst, r.Holder.AppendJSON, r.Warning, r.Text), true
	case wire.ReleaseReply:
		return wire.AppendReleaseReply(dst, r.URI.AppendJSON, r.MustClear, r.Text), true
	}
	return dst, false
}
