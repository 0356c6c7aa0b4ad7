// Package ingest holds the source adapters of seed 001: they read a source's format into
// domain.SourceBatch records keyed by the source's own ids, and report what they cannot read
// (with line numbers where the format has lines) without giving up on the rest.
//
//	LoCoMo       one conversation file (the LoCoMo benchmark's format): a thread per
//	             conversation and per session, one event per turn (speaker, dia_id, the
//	             session's date, the image caption kept), one episode per session
//	events       JSON Lines, one event a line: timestamp, channel, content, direction, thread,
//	             source ids
//	agent        JSON Lines transcripts of AI agent sessions: messages, turns, tool calls and
//	             subagent links, in a normalised form or Claude Code's transcript lines
package ingest

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Adapter names.
const (
	AdapterLoCoMo      = "locomo"
	AdapterEvents      = "jsonl"
	AdapterAgentEvents = "aix-events"
	AdapterAgents      = "aix-agents"
)

// LoCoMoChannel is the channel of LoCoMo events.
const LoCoMoChannel = "locomo"

// LoCoMoDefinition is the episode definition of LoCoMo imports: one episode per session (a
// session is a thread).
var LoCoMoDefinition = struct {
	Name     string
	Strategy domain.EpisodeStrategy
}{"locomo_session", domain.StrategyThread}

// LoCoMoQuestion is one question of a LoCoMo conversation.
type LoCoMoQuestion struct {
	Question string
	Answer   string
	// Evidence are the dia_ids of the turns that hold the answer.
	Evidence []string
	Category int
}

// LoCoMo is one parsed conversation.
type LoCoMo struct {
	Name      string
	SpeakerA  string
	SpeakerB  string
	Sessions  int
	Turns     int
	Batch     *domain.SourceBatch
	Questions []LoCoMoQuestion
	Problems  []domain.SourceProblem
}

var (
	sessionKey = regexp.MustCompile(`^session_(\d+)$`)
	diaIDRE    = regexp.MustCompile(`D\d+:\d+`)
)

// LoCoMoDate parses a session date such as "1:56 pm on 8 May, 2023".
func LoCoMoDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"3:04 pm on 2 January, 2006", "3:04 pm on 2 Jan, 2006", "3:04 PM on 2 January, 2006",
		"3:04 pm on January 2, 2006", "2 January, 2006", "2 January 2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("unreadable session date %q", s)
}

type locomoTurn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
	ImgURL  any    `json:"img_url"`
	Caption string `json:"blip_caption"`
	Query   string `json:"query"`
}

// ParseLoCoMo reads one LoCoMo conversation; name keys its records (the file's base name).
// Errors: INVALID_ARGUMENT when the file is not a LoCoMo conversation at all.
func ParseLoCoMo(r io.Reader, name string) (*LoCoMo, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, domain.FieldErrorf("data", "not a LoCoMo conversation (a JSON object): %v", err)
	}
	// Some copies of the dataset wrap the conversation: {"conversation": {...}, "qa": [...]}.
	if inner, ok := doc["conversation"]; ok {
		var conv map[string]json.RawMessage
		if err := json.Unmarshal(inner, &conv); err == nil {
			for k, v := range conv {
				doc[k] = v
			}
		}
	}
	c := &LoCoMo{Name: name}
	_ = json.Unmarshal(doc["speaker_a"], &c.SpeakerA)
	_ = json.Unmarshal(doc["speaker_b"], &c.SpeakerB)
	var sessions []int
	for k := range doc {
		if m := sessionKey.FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[1])
			sessions = append(sessions, n)
		}
	}
	if len(sessions) == 0 {
		return nil, domain.FieldErrorf("data", "not a LoCoMo conversation: no session_N keys")
	}
	sort.Ints(sessions)
	problem := func(rec, format string, args ...any) {
		c.Problems = append(c.Problems, domain.SourceProblem{Record: rec, Message: fmt.Sprintf(format, args...)})
	}
	b := &domain.SourceBatch{Adapter: AdapterLoCoMo}
	convName := strings.TrimSpace(c.SpeakerA + " & " + c.SpeakerB)
	b.Threads = append(b.Threads, &domain.SourceThread{SourceID: name, Channel: LoCoMoChannel, Name: convName})
	seen := map[string]bool{}
	for _, n := range sessions {
		key := fmt.Sprintf("session_%d", n)
		var dateStr string
		if err := json.Unmarshal(doc[key+"_date_time"], &dateStr); err != nil {
			problem(key, "no session date (%s_date_time); the session is skipped", key)
			continue
		}
		date, err := LoCoMoDate(dateStr)
		if err != nil {
			problem(key+"_date_time", "%v; the session is skipped", err)
			continue
		}
		if b.Threads[0].CreatedAt.IsZero() {
			b.Threads[0].CreatedAt = date
		}
		var turns []json.RawMessage
		if err := json.Unmarshal(doc[key], &turns); err != nil {
			problem(key, "not a list of turns: %v", err)
			continue
		}
		thread := name + "/" + key
		b.Threads = append(b.Threads, &domain.SourceThread{SourceID: thread, Channel: LoCoMoChannel,
			Name: fmt.Sprintf("%s, session %d", convName, n), ParentSourceID: name, CreatedAt: date})
		c.Sessions++
		for i, rt := range turns {
			rec := fmt.Sprintf("%s[%d]", key, i)
			var t locomoTurn
			if err := json.Unmarshal(rt, &t); err != nil {
				problem(rec, "not a turn: %v", err)
				continue
			}
			if strings.TrimSpace(t.Speaker) == "" || strings.TrimSpace(t.DiaID) == "" {
				problem(rec, "a turn needs a speaker and a dia_id")
				continue
			}
			if seen[t.DiaID] {
				problem(rec, "dia_id %s appears twice; the first is kept", t.DiaID)
				continue
			}
			text := strings.TrimSpace(t.Text)
			caption := strings.TrimSpace(t.Caption)
			if text == "" && caption == "" {
				problem(rec, "turn %s has neither text nor an image caption", t.DiaID)
				continue
			}
			seen[t.DiaID] = true
			md := map[string]any{"diaId": t.DiaID, "session": float64(n), "conversation": name}
			types := []string{"text"}
			content := text
			if caption != "" {
				md["caption"] = caption
				types = append(types, "image")
				if content != "" {
					content += " "
				}
				content += "[image: " + caption + "]"
			}
			if url := imageURL(t.ImgURL); url != "" {
				md["imageUrl"] = url
			}
			if t.Query != "" {
				md["imageQuery"] = t.Query
			}
			dir := domain.DirectionSent
			if t.Speaker == c.SpeakerB {
				dir = domain.DirectionReceived
			}
			// A turn is said its position in seconds after the session starts: the turns keep their
			// order in time, and a reply follows what it replies to.
			b.Events = append(b.Events, &domain.SourceEvent{SourceID: name + "/" + t.DiaID, ThreadSourceID: thread, Timestamp: date.Add(time.Duration(i) * time.Second),
				Channel: LoCoMoChannel, ContentTypes: types, Content: content, Direction: dir, Speaker: t.Speaker, Metadata: md})
			c.Turns++
		}
	}
	c.Batch = b
	var qs []struct {
		Question string          `json:"question"`
		Answer   any             `json:"answer"`
		Evidence json.RawMessage `json:"evidence"`
		Category int             `json:"category"`
	}
	if q, ok := doc["qa"]; ok {
		if err := json.Unmarshal(q, &qs); err != nil {
			problem("qa", "unreadable questions: %v", err)
		}
	}
	for _, q := range qs {
		var ev []string
		var list []any
		if json.Unmarshal(q.Evidence, &list) == nil {
			for _, e := range list {
				ev = append(ev, diaIDRE.FindAllString(fmt.Sprint(e), -1)...)
			}
		}
		ans := ""
		if q.Answer != nil {
			ans = fmt.Sprint(q.Answer)
		}
		c.Questions = append(c.Questions, LoCoMoQuestion{Question: q.Question, Answer: ans, Evidence: ev, Category: q.Category})
	}
	return c, nil
}

func imageURL(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		if len(x) > 0 {
			s, _ := x[0].(string)
			return s
		}
	}
	return ""
}
