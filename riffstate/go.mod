module github.com/como-technologies/riff/riffstate

go 1.26

require github.com/como-technologies/riff/riffcore v0.0.0

replace github.com/como-technologies/riff/riffcore => ../riffcore
