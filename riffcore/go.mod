module github.com/como-technologies/riff/riffcore

go 1.26
