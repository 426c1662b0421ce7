package riffstate

import "github.com/como-technologies/riff/riffcore/record"

// madeOf gives the first change of type T in the records of a call. A
// reply reads what it tells from the records of its call and from the
// written copy, never from a value of handle that a checkpoint loses.
func madeOf[T record.Change](d Done) (T, bool) {
	for _, rec := range d.Made {
		if c, ok := rec.Change.(T); ok {
			return c, true
		}
	}
	var zero T
	return zero, false
}
