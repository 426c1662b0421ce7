package riffengine

// The seams of the tests of the checkpoint's thread.
var (
	ThreadNice = threadNice
	ThreadEnds = threadEnds
)
