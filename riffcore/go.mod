module github.com/como-technologies/riff/riffcore

go 1.26

require (
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/google/go-cmp v0.7.0
)
