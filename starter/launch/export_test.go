package launch

// TailSize is stderrTail, for the external tests.
const TailSize = stderrTail
