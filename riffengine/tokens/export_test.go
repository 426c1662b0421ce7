package tokens

// TokenCount gives the number of access tokens that the store keeps,
// live or expired.
func (s *Store) TokenCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tokens)
}
