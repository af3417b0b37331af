//go:build linux

package guard

// armSpec starts the guard on the group spec.PGID and waits until it watches.
func armSpec(spec Spec) (*Guard, error) {
	g, err := Spawn(spec)
	if err != nil {
		return nil, err
	}
	if err := g.AwaitArmed(); err != nil {
		return nil, err
	}
	return g, nil
}
