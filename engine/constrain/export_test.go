package constrain

// Work is the number of parse steps the last call on c took, counted
// against MaxWork.
func Work(c *Constraint) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return MaxWork - c.w.left
}
