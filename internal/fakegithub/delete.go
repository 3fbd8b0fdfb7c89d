package fakegithub

import "net/http"

// deleteComment answers DELETE /repos/{o}/{r}/issues/comments/{id}: 204,
// and the comment is gone.
func (s *Server) deleteComment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.findComment(r)
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	for i, o := range s.comments {
		if o == c {
			s.comments = append(s.comments[:i], s.comments[i+1:]...)
			break
		}
	}
	w.WriteHeader(http.StatusNoContent)
}
