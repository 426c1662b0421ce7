package rifflog

import "context"

// NewestCheckpointName gives the name of the newest checkpoint by
// position and time, read or not; "" when there is none. A new instance
// lists the checkpoints again after its lease wait with it: when the
// name is not the one that its load used, the old instance wrote one
// since, and the new instance loads again.
func NewestCheckpointName(ctx context.Context, s Store) (string, error) {
	names, err := checkpointNames(ctx, s)
	if err != nil || len(names) == 0 {
		return "", err
	}
	return names[len(names)-1].name, nil
}
