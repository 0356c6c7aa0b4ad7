package subconscious

import (
	"fmt"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Session lifecycle (MSG-0005). The functions decide; the store persists what they return.

// Start returns the changes of starting sess: every active session of the same instance is
// ended as CRASH first (a mind that starts again without ending has crashed), each with a
// SessionEnd the Subconscious answers with its audit prompt. start is the SessionStart message.
func Start(active []*domain.Session, sess *domain.Session, start *domain.Event, now time.Time) *domain.Changes {
	ch := &domain.Changes{Events: []*domain.Event{start}}
	for _, old := range active {
		ended, ev := End(old, domain.EndCrash, start.Context.Derive(domain.CtxCortex, now), now)
		ch.Sessions = append(ch.Sessions, ended)
		ch.Events = append(ch.Events, ev)
	}
	ch.Sessions = append(ch.Sessions, sess)
	return ch
}

// End returns sess ended for reason at now and its SessionEnd message, whose context is tc.
func End(sess *domain.Session, reason domain.SessionEndReason, tc domain.TransactionContext, now time.Time) (*domain.Session, *domain.Event) {
	s := sess.Clone()
	t := now.UTC()
	s.EndedAt, s.EndReason = &t, reason
	return s, &domain.Event{Type: domain.MsgSessionEnd, ScopeID: s.ScopeID, Context: tc,
		Payload: map[string]any{"sessionId": s.ID, "instanceId": s.InstanceID, "mindType": s.MindType,
			"reason": string(reason), "durationSeconds": int(s.Duration(t) / time.Second)}}
}

// Beat returns sess after a heartbeat at now and its messages: HeartbeatReceived, and
// ModeChanged when mode is set and differs from the session's.
func Beat(sess *domain.Session, mode domain.SessionMode, tc domain.TransactionContext, now time.Time) (*domain.Session, []*domain.Event) {
	s := sess.Clone()
	t := now.UTC()
	s.LastHeartbeatAt = t
	s.Heartbeats++
	evs := []*domain.Event{{Type: domain.MsgHeartbeatReceived, ScopeID: s.ScopeID, Context: tc,
		Payload: map[string]any{"sessionId": s.ID, "instanceId": s.InstanceID, "timestamp": t.Format(time.RFC3339Nano)}}}
	if mode != "" && mode != s.Mode {
		evs = append(evs, &domain.Event{Type: domain.MsgModeChanged, ScopeID: s.ScopeID, Context: tc.Derive(domain.CtxCortex, t),
			Payload: map[string]any{"sessionId": s.ID, "instanceId": s.InstanceID, "oldMode": string(s.Mode), "newMode": string(mode)}})
		s.Mode, s.ModeSince = mode, t
	}
	return s, evs
}

// TimedOut reports whether an active session's heartbeats stopped for timeout at now.
func TimedOut(s *domain.Session, timeout time.Duration, now time.Time) bool {
	return s.Active() && timeout > 0 && now.Sub(s.LastHeartbeatAt) >= timeout
}

// BreakDue reports whether a session has been in task mode for breakAfter since it entered it
// or was last told to take a break; it returns the minutes in task mode.
func BreakDue(s *domain.Session, breakAfter time.Duration, now time.Time) (int, bool) {
	if !s.Active() || s.Mode != domain.ModeTask || breakAfter <= 0 {
		return 0, false
	}
	since := s.ModeSince
	if s.LastBreakAt != nil && s.LastBreakAt.After(since) {
		since = *s.LastBreakAt
	}
	return int(now.Sub(s.ModeSince) / time.Minute), now.Sub(since) >= breakAfter
}

// AuditPrompt is the SessionAuditPrompt the Subconscious publishes when sess ended (cause is its
// SessionEnd): the prompt, the session's duration and the memories stored in it.
func AuditPrompt(sess *domain.Session, memoryIDs []string, prompt string, cause domain.TransactionContext, now time.Time) *domain.Event {
	dur := 0
	if sess.EndedAt != nil {
		dur = int(sess.Duration(*sess.EndedAt) / time.Second)
	}
	ids := append([]string{}, memoryIDs...)
	return &domain.Event{Type: domain.NtSessionAuditPrompt, ScopeID: sess.ScopeID, Context: cause.Derive(domain.CtxSubconscious, now),
		Payload: map[string]any{"instanceId": sess.InstanceID, "endedSessionId": sess.ID, "mindType": sess.MindType,
			"prompt": prompt, "durationSeconds": dur, "memoriesStored": len(ids), "memoryIds": ids,
			"reason": string(sess.EndReason)}}
}

// BreakSuggestion is the text of a BreakNotification.
func BreakSuggestion(minutes int) string {
	return fmt.Sprintf("You have been in task mode for %d minutes. Take a short break: step back, "+
		"consolidate what you learned, then continue with fresh eyes.", minutes)
}

// BreakNotification is the notification pushed to a mind in task mode for too long.
func BreakNotification(sess *domain.Session, minutes int, tc domain.TransactionContext) *domain.Event {
	return &domain.Event{Type: domain.NtBreakNotification, ScopeID: sess.ScopeID, Context: tc,
		Payload: map[string]any{"instanceId": sess.InstanceID, "sessionId": sess.ID, "minutesInTaskMode": minutes,
			"suggestion": BreakSuggestion(minutes)}}
}
