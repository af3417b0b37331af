//go:build linux

package gate

// start starts the gate and waits until it is ready: it leads its own
// process group, and has executed nothing.
func start(spec Spec) (*Gate, error) {
	g, err := Spawn(spec)
	if err != nil {
		return nil, err
	}
	if err := g.AwaitReady(); err != nil {
		return nil, err
	}
	return g, nil
}
