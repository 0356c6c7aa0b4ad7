package resolvers

import (
	"context"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/ingest"
	"github.com/totalrecall/totalrecall/resolvers/model"
)

// DefaultRecallWaitSeconds is how long totalRecall waits when waitSeconds is not given.
const DefaultRecallWaitSeconds = 10

func recallWait(seconds *int) (time.Duration, error) {
	s := intOr(seconds, DefaultRecallWaitSeconds)
	if s < 0 || time.Duration(s)*time.Second > cortex.MaxRecallWait {
		return 0, domain.FieldErrorf("waitSeconds", "must be within 0..%d", int(cortex.MaxRecallWait/time.Second))
	}
	return time.Duration(s) * time.Second, nil
}

func checkScopeID(id string) error { return domain.CheckID("input.scopeId", id) }

func turn(in model.TurnInput) ingest.Turn {
	return ingest.Turn{SessionID: in.AgentSessionID, Source: str(in.Source), TurnID: str(in.TurnID),
		Prompt: str(in.Prompt), PromptID: str(in.PromptID), PromptAt: in.PromptAt,
		Answer: str(in.Answer), AnswerID: str(in.AnswerID), AnswerAt: in.AnswerAt,
		Model: str(in.Model), WorkspacePath: str(in.WorkspacePath)}
}

// notifications turns queued notification events into their GraphQL types.
func (r *Resolver) notifications(ctx context.Context, evs []*domain.Event) ([]model.Notification, error) {
	out := make([]model.Notification, 0, len(evs))
	for _, e := range evs {
		n, err := r.notification(ctx, e)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func (r *Resolver) recollection(ctx context.Context, rec *cortex.Recollection) (*model.Recollection, error) {
	out := &model.Recollection{OriginRequestID: rec.OriginRequestID}
	if rec.Declined != "" {
		d := rec.Declined
		out.Declined = &d
	}
	if rec.Notification != nil {
		n, err := r.notification(ctx, rec.Notification)
		if err != nil {
			return nil, err
		}
		if tr, ok := n.(*model.TotalRecallNotification); ok {
			out.Notification = tr
		}
	}
	return out, nil
}
