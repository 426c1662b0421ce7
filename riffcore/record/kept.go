package record

// DecodePostedAt reads b, the JSON object of a Posted with the position
// and the time of its record beside its fields, as encoding/json reads it
// into
//
//	struct {
//		Posted
//		Position uint64 `json:"position"`
//		AtMs     int64  `json:"at_ms"`
//	}
//
// (the form in which a checkpoint keeps the messages of a thread). It
// reads only the forms of the fast path of Decode, with both keys of the
// record there once, in their own case, and no other key; ok is false
// for each other form, and the caller decodes b with encoding/json,
// which stays the reference. FuzzDecodePostedAtIsTheDecodeOfEncodingJSON
// checks that the two agree.
func (d *Decoder) DecodePostedAt(b []byte) (p Posted, position uint64, atMs int64, ok bool) {
	r := reader{b: b, d: d}
	var seen keySet
	r.extra = func(key []byte) (read, ok bool) {
		switch string(key) {
		case "position":
			if !seen.add(0) {
				return true, false
			}
			position, ok = r.uint64()
			return true, ok
		case "at_ms":
			if !seen.add(1) {
				return true, false
			}
			atMs, ok = r.int64()
			return true, ok
		}
		// Another key: encoding/json would skip it, or take it for a
		// field in another case. Neither is in a checkpoint.
		return true, false
	}
	p, ok = r.readPosted()
	if !ok || !seen.all(0b11) || r.space() != len(b) {
		return Posted{}, 0, 0, false
	}
	return p, position, atMs, true
}
