package record

// DecodeSlow and DecodeFast give the tests of package record_test the
// two paths of Decode.
func DecodeSlow(line []byte) (Record, error) { return decodeSlow(line) }

// DecodeFast is the fast path alone; ok is false when it leaves the line
// to the slow path.
func DecodeFast(line []byte) (r Record, ok bool) { return decodeFast(line, nil) }

// DecodeFastWith is the fast path alone with the tables of d.
func DecodeFastWith(d *Decoder, line []byte) (r Record, ok bool) { return decodeFast(line, d) }

// DecodeEncoded is the fast path of the form that Encode writes alone.
func DecodeEncoded(line []byte) (r Record, ok bool) { return decodeEncoded(line, nil) }
