package sessions

// The work queue of a team labelling one session (SPEC "Teams").
//
// Assign deals the session's items to the team. Every item gets slot 0;
// a seeded share of the items (Overlap) gets slot 1 too, so that two
// people label it and the statistics can tell how far people agree with
// each other. Which items: the round(N·Overlap) items with the smallest
// overlap number, a permanent random number of the seed and the item's id
// (queuePRN: SHA-256 of "gavel-queue", the purpose, the seed in decimal
// and the id, NUL-separated, as sessions/plan's PRN). The rank — the order
// in which a person meets their items — is the order of another such
// number, so it is seeded too and both slots of an item share it.
//
// Dealing is balanced and seeded: the items with two slots first, in
// rank order, each to the two people with the fewest slots so far (ties:
// the pair that shares the fewest items so far, then a seeded rotation
// of the team), then the others, each to the person with the fewest
// slots. Both slots of an item always go to two different people, and
// the people's slot counts differ by at most one. The same items, team
// and seed always deal the same way; the order the names are given in
// does not matter.
//
// A queue is assigned once: Assign again is refused unless Replace. A
// replaced queue keeps every slot already done (with the person who did
// it) and deals the rest of the new assignment around them; claims in
// progress are dropped.
//
// A queue may be blind (Blind; SPEC "Teams": "in a blind queue people do
// not see each other's labels until adjudication"): the review screen
// then shows nobody else's labels or can't judges, only the aggregate
// figures of the statistics, and the adjudicator (gavel review
// --adjudicate) sees them all. It is a setting of the queue the screens
// follow, not a permission: the session still holds everyone's labels for
// gavel stats and export. A Replace sets it anew, or keeps it (KeepBlind).
//
// Claim(annotator, n) hands out up to n items, and marks their slots
// claimed until now + ClaimTimeout (default 30 minutes):
//  1. the slots the annotator has in hand (claimed, not expired, not
//     done), their claim renewed — so that a screen reopened after a
//     crash gets its items back;
//  2. then the annotator's own slots, unclaimed or whose claim expired,
//     in rank order;
//  3. when none are left, other people's slots that are unclaimed or
//     expired — the items nobody has labelled yet first (slot 0), in rank
//     order — so that nobody idles while work is left.
//
// It never hands out a done slot, an item the annotator has already
// decided, or a slot of an item whose other slot the annotator holds: an
// item's two slots are always two people. A slot is done when its holder
// (the claimant, else the annotator it was dealt to) has a live decision
// on the item: a label or accept on any dimension, or a "can't judge";
// an undo of it reopens the slot. Release gives claimed slots back
// before they expire. Only the team's members may claim; a name outside
// the team is refused with a message naming the team.
//
// SQLite serialises Claim with its IMMEDIATE write transaction;
// PostgreSQL (sessions/pg) with row locks taken FOR UPDATE SKIP LOCKED and
// a lock per annotator, so that people claiming at the same instant never
// receive the same slot.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Queue is a session's work queue, on SQLite (*Store) or PostgreSQL
// (pg.Queue). The contract suite sessions/queuetest runs against both.
type Queue interface {
	// Assign deals the session's items to a team (see the package's
	// queue documentation).
	Assign(AssignOptions) (AssignSummary, error)
	// Claim hands out up to n item ids for annotator to label.
	Claim(annotator string, n int) ([]string, error)
	// Release gives back annotator's claims on the items before they
	// expire; items not claimed by annotator are left alone.
	Release(annotator string, itemIDs []string) error
	// RecordAs commits one group of actions as annotator.
	RecordAs(annotator string, acts []Action) ([]Action, error)
	// Progress counts each annotator's slots.
	Progress() ([]QueueProgress, error)
	Close() error
}

// QueueClock is implemented by both backends' queues: tests set the
// clock that claims are made and expire by.
type QueueClock interface {
	SetQueueClock(now func() time.Time)
}

// DefaultClaimTimeout is how long a claim lasts when AssignOptions say
// nothing (SPEC: --claim-timeout, default 30 min).
const DefaultClaimTimeout = 30 * time.Minute

// maxClaim bounds one Claim: a screen asks for a few items at a time.
const maxClaim = 1000

// AssignOptions say how to deal a session's items to a team.
type AssignOptions struct {
	// Annotators are the team, at least one, each name once.
	Annotators []string
	// Overlap is the share of items two people label, in [0, 1]; above 0
	// it needs two annotators.
	Overlap float64
	// Seed makes the deal reproducible.
	Seed int64
	// ClaimTimeout is how long a claim lasts; 0 means
	// DefaultClaimTimeout.
	ClaimTimeout time.Duration
	// Replace deals again over an existing queue, keeping the slots
	// already done.
	Replace bool
	// Blind makes the queue blind: people do not see each other's labels
	// on the review screen until adjudication.
	Blind bool
	// KeepBlind, on a Replace, keeps the replaced queue's Blind (Blind is
	// then not used): gavel assign --replace without --blind. A new queue
	// is blind only with Blind.
	KeepBlind bool
}

// QueueSettings are a queue's recorded settings.
type QueueSettings struct {
	Annotators   []string
	Overlap      float64
	Seed         int64
	ClaimTimeout time.Duration
	CreatedAt    time.Time
	// Blind: people do not see each other's labels on the review screen
	// until adjudication (false for queues assigned before the setting).
	Blind bool
}

// AssignSummary says what Assign dealt.
type AssignSummary struct {
	Settings QueueSettings
	// Items is the number of items in the queue; Overlap how many of them
	// two people label.
	Items, Overlap int
	// Kept is the number of done slots a Replace kept.
	Kept int
	// Annotators gives each member's share, in the team's order.
	Annotators []AssignedTo
}

// AssignedTo is one annotator's share of a deal.
type AssignedTo struct {
	Annotator string
	// Slots is the number of slots dealt to them; Shared how many of
	// those are on items two people label. Kept slots are not counted.
	Slots, Shared int
}

// QueueProgress is one annotator's standing in the queue.
type QueueProgress struct {
	Annotator string
	// Assigned is the number of slots dealt to them.
	Assigned int
	// Claimed is the number of slots they hold now: claimed, not expired,
	// not done.
	Claimed int
	// Done is the number of slots they have done, their own or taken
	// from others.
	Done int
	// Taken is the number of slots dealt to them that someone else has
	// done or holds now (claimed, not expired): gone from their share.
	Taken int
	// Left is the number of slots dealt to them that nobody has done and
	// nobody else holds: what remains of their share (their own claims
	// not yet decided included).
	Left int
}

// QueueSlot is one row of queue_slots.
type QueueSlot struct {
	ItemID    string
	Slot      int
	Annotator string
	Rank      int64
	// ClaimedBy, ClaimedAt and ExpiresAt are the current or last claim.
	ClaimedBy            string
	ClaimedAt, ExpiresAt time.Time
}

// Errors of the queue, for errors.Is.
var (
	// ErrNoQueue: the session has no assignment yet.
	ErrNoQueue = errors.New("session has no queue")
	// ErrQueueExists: Assign over a queue without Replace.
	ErrQueueExists = errors.New("session already has a queue")
	// ErrNotInTeam: an annotator outside the team claimed or released.
	ErrNotInTeam = errors.New("annotator is not in the team")
	// ErrAssign: the options cannot make a queue.
	ErrAssign = errors.New("cannot assign")
)

// CheckAssign validates and normalises assignment options: names trimmed,
// the timeout defaulted. Both backends call it first.
func CheckAssign(o AssignOptions) (AssignOptions, error) {
	if len(o.Annotators) == 0 {
		return o, fmt.Errorf("%w: name the team's annotators (gavel assign --annotators ana,bo,cy)", ErrAssign)
	}
	names := make([]string, 0, len(o.Annotators))
	for _, a := range o.Annotators {
		a = strings.TrimSpace(a)
		if err := CheckAnnotatorName(a); err != nil {
			return o, fmt.Errorf("%w: %v", ErrAssign, err)
		}
		if slices.Contains(names, a) {
			return o, fmt.Errorf("%w: annotator %s is named twice", ErrAssign, strconv.Quote(a))
		}
		names = append(names, a)
	}
	o.Annotators = names
	switch {
	case math.IsNaN(o.Overlap) || o.Overlap < 0 || o.Overlap > 1:
		return o, fmt.Errorf("%w: overlap %v is not a share between 0 and 1 (0.2 gives a fifth of the items to two people)", ErrAssign, o.Overlap)
	case o.Overlap > 0 && len(names) < 2:
		return o, fmt.Errorf("%w: an overlap needs two annotators at least: the shared items go to two different people", ErrAssign)
	case o.ClaimTimeout < 0:
		return o, fmt.Errorf("%w: claim timeout %v is negative", ErrAssign, o.ClaimTimeout)
	case o.ClaimTimeout == 0:
		o.ClaimTimeout = DefaultClaimTimeout
	case o.ClaimTimeout < time.Second:
		return o, fmt.Errorf("%w: claim timeout %v is below a second", ErrAssign, o.ClaimTimeout)
	}
	return o, nil
}

// CheckAnnotatorName refuses an annotator name a queue cannot hold: empty,
// not UTF-8, or with control characters (names are printed in progress
// tables and stored in PostgreSQL text columns).
func CheckAnnotatorName(a string) error {
	switch {
	case a == "":
		return errors.New("an annotator name is empty")
	case !utf8.ValidString(a):
		return fmt.Errorf("annotator name %s is not UTF-8 text", strconv.Quote(a))
	case strings.ContainsFunc(a, unicode.IsControl):
		return fmt.Errorf("annotator name %s holds a control character", strconv.Quote(a))
	}
	return nil
}

// queuePRN is an item's (or a name's) permanent number for one purpose
// under the seed: the first 8 bytes of SHA-256 of "gavel-queue", NUL, the
// purpose, NUL, the seed in decimal, NUL and the id, big-endian.
func queuePRN(seed int64, purpose, id string) uint64 {
	var buf [128]byte
	b := append(buf[:0], "gavel-queue\x00"...)
	b = append(b, purpose...)
	b = append(b, 0)
	b = strconv.AppendInt(b, seed, 10)
	b = append(b, 0)
	b = append(b, id...)
	sum := sha256.Sum256(b)
	return binary.BigEndian.Uint64(sum[:8])
}

// DealQueue deals the items (ids in any order) under o, which CheckAssign
// has normalised. kept holds, per item, the done slots a Replace keeps:
// they are returned too, as they were but for their rank (the item's new
// one), and the new slots are numbered around them. It also returns how
// many items the overlap gives two places.
func DealQueue(ids []string, o AssignOptions, kept map[string][]QueueSlot) ([]QueueSlot, int) {
	type item struct {
		id      string
		rank    int64
		key     uint64
		two     bool
		holders []string // people with a kept slot
		free    []int    // slot numbers not kept
	}
	var out []QueueSlot
	items := make([]item, len(ids))
	for i, id := range ids {
		items[i] = item{id: id}
	}
	byKey := func(a, b item) int {
		if c := cmpUint(a.key, b.key); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	}
	// The overlap: the k items with the smallest overlap numbers.
	k := int(math.Round(float64(len(items)) * o.Overlap))
	for i := range items {
		items[i].key = queuePRN(o.Seed, "overlap", items[i].id)
	}
	slices.SortFunc(items, byKey)
	for i := range k {
		items[i].two = true
	}
	// The rank: the order of the rank numbers.
	for i := range items {
		items[i].key = queuePRN(o.Seed, "rank", items[i].id)
	}
	slices.SortFunc(items, byKey)
	for i := range items {
		it := &items[i]
		it.rank = int64(i)
		used := map[int]bool{}
		for _, s := range kept[it.id] {
			used[s.Slot] = true
			it.holders = append(it.holders, holderOf(s))
			s.Rank = it.rank
			out = append(out, s)
		}
		for s := range 2 {
			if !used[s] {
				it.free = append(it.free, s)
			}
		}
	}

	// The team in a seeded order; rotate(r) starts it at a place that
	// moves with the rank, so that ties do not always favour one person.
	team := slices.Clone(o.Annotators)
	slices.SortFunc(team, func(a, b string) int {
		if c := cmpUint(queuePRN(o.Seed, "annotator", a), queuePRN(o.Seed, "annotator", b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	count := make([]int, len(team))
	shared := make([][]int, len(team))
	for i := range shared {
		shared[i] = make([]int, len(team))
	}
	// pick is the member with the fewest slots, then (with another one
	// given) the fewest items shared with them, then the first from the
	// rotation, among those not excluded.
	pick := func(rank int64, with int, exclude func(int) bool) int {
		best := -1
		for j := range team {
			p := (j + int(rank%int64(len(team)))) % len(team)
			if exclude(p) {
				continue
			}
			if best < 0 || count[p] < count[best] ||
				(count[p] == count[best] && with >= 0 && shared[with][p] < shared[with][best]) {
				best = p
			}
		}
		return best
	}
	excludeHolders := func(it *item) func(int) bool {
		return func(p int) bool { return slices.Contains(it.holders, team[p]) }
	}
	give := func(it *item, p int) {
		out = append(out, QueueSlot{ItemID: it.id, Slot: it.free[0], Annotator: team[p], Rank: it.rank})
		it.free = it.free[1:]
		it.holders = append(it.holders, team[p])
		count[p]++
	}
	need := func(it *item) int {
		n := 1
		if it.two {
			n = 2
		}
		return max(0, n-(2-len(it.free)))
	}
	// Pairs first, then items one slot of which is kept, then the rest:
	// the free ones last keep the counts within one of each other.
	for i := range items {
		it := &items[i]
		if need(it) != 2 {
			continue
		}
		p := pick(it.rank, -1, excludeHolders(it))
		q := pick(it.rank, p, func(x int) bool { return x == p || excludeHolders(it)(x) })
		shared[p][q]++
		shared[q][p]++
		give(it, p)
		give(it, q)
	}
	for pass := range 2 {
		for i := range items {
			it := &items[i]
			if need(it) != 1 || (len(it.holders) > 0) != (pass == 0) {
				continue
			}
			p := pick(it.rank, -1, excludeHolders(it))
			if p < 0 {
				continue // the whole team has done the item already
			}
			give(it, p)
		}
	}
	slices.SortFunc(out, func(a, b QueueSlot) int {
		if c := cmpInt(a.Rank, b.Rank); c != 0 {
			return c
		}
		return a.Slot - b.Slot
	})
	return out, k
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// holderOf is whose a slot is: its claimant, else whom it was dealt to.
func holderOf(s QueueSlot) string {
	if s.ClaimedBy != "" {
		return s.ClaimedBy
	}
	return s.Annotator
}

// SummariseDeal counts a deal (DealQueue's slots, kept ones included) per
// annotator, in the team's order.
func SummariseDeal(o AssignOptions, slots []QueueSlot, kept map[string][]QueueSlot, overlap int, at time.Time) AssignSummary {
	sum := AssignSummary{
		Settings: QueueSettings{Annotators: o.Annotators, Overlap: o.Overlap, Seed: o.Seed, ClaimTimeout: o.ClaimTimeout, CreatedAt: at, Blind: o.Blind},
		Overlap:  overlap,
	}
	slotsOf := map[string]int{}
	for _, s := range slots {
		slotsOf[s.ItemID]++
	}
	sum.Items = len(slotsOf)
	isKept := func(s QueueSlot) bool {
		return slices.ContainsFunc(kept[s.ItemID], func(k QueueSlot) bool { return k.Slot == s.Slot })
	}
	for _, s := range slots {
		if isKept(s) {
			sum.Kept++
		}
	}
	for _, a := range o.Annotators {
		to := AssignedTo{Annotator: a}
		for _, s := range slots {
			if s.Annotator == a && !isKept(s) {
				to.Slots++
				if slotsOf[s.ItemID] == 2 {
					to.Shared++
				}
			}
		}
		sum.Annotators = append(sum.Annotators, to)
	}
	return sum
}

// Queue settings' keys in queue_settings.
const (
	settingAnnotators   = "annotators"
	settingOverlap      = "overlap"
	settingSeed         = "seed"
	settingClaimTimeout = "claim_timeout"
	settingCreatedAt    = "created_at"
	settingBlind        = "blind"
)

// QueueSettingRows is the settings as queue_settings rows (key, value).
func QueueSettingRows(st QueueSettings) [][2]string {
	names, _ := json.Marshal(st.Annotators)
	return [][2]string{
		{settingAnnotators, string(names)},
		{settingOverlap, strconv.FormatFloat(st.Overlap, 'g', -1, 64)},
		{settingSeed, strconv.FormatInt(st.Seed, 10)},
		{settingClaimTimeout, st.ClaimTimeout.String()},
		{settingCreatedAt, stamp(st.CreatedAt)},
		{settingBlind, strconv.FormatBool(st.Blind)},
	}
}

// ParseQueueSettings reads queue_settings rows; none at all is
// ErrNoQueue.
func ParseQueueSettings(rows map[string]string) (QueueSettings, error) {
	var st QueueSettings
	if len(rows) == 0 {
		return st, ErrNoQueue
	}
	bad := func(key string, err error) error {
		return fmt.Errorf("the queue's setting %s (%s) cannot be read: %v", key, strconv.Quote(rows[key]), err)
	}
	if err := json.Unmarshal([]byte(rows[settingAnnotators]), &st.Annotators); err != nil || len(st.Annotators) == 0 {
		if err == nil {
			err = errors.New("no annotator")
		}
		return st, bad(settingAnnotators, err)
	}
	var err error
	if st.Overlap, err = strconv.ParseFloat(rows[settingOverlap], 64); err != nil {
		return st, bad(settingOverlap, err)
	}
	if st.Seed, err = strconv.ParseInt(rows[settingSeed], 10, 64); err != nil {
		return st, bad(settingSeed, err)
	}
	if st.ClaimTimeout, err = time.ParseDuration(rows[settingClaimTimeout]); err != nil || st.ClaimTimeout <= 0 {
		if err == nil {
			err = errors.New("not positive")
		}
		return st, bad(settingClaimTimeout, err)
	}
	if st.CreatedAt, err = parseStamp(rows[settingCreatedAt]); err != nil {
		return st, bad(settingCreatedAt, err)
	}
	if st.Blind, err = parseBlind(rows); err != nil {
		return st, bad(settingBlind, err)
	}
	return st, nil
}

// parseBlind reads the blind setting: "true" or "false", none (a queue
// assigned before the setting) false.
func parseBlind(rows map[string]string) (bool, error) {
	switch v, ok := rows[settingBlind]; {
	case !ok:
		return false, nil
	case v == "true":
		return true, nil
	case v == "false":
		return false, nil
	}
	return false, errors.New(`neither "true" nor "false"`)
}

// ReplacingQueue is o for a Replace of the queue whose settings are rows:
// with KeepBlind, Blind is the replaced queue's. Both backends call it
// within the transaction that deals again.
func ReplacingQueue(o AssignOptions, rows map[string]string) (AssignOptions, error) {
	if !o.KeepBlind {
		return o, nil
	}
	blind, err := parseBlind(rows)
	if err != nil {
		return o, fmt.Errorf("the queue's setting %s (%s) cannot be read: %v", settingBlind, strconv.Quote(rows[settingBlind]), err)
	}
	o.Blind = blind
	return o, nil
}

// InTeam checks that annotator may use the queue of the session named
// where, naming the team when not (errors.Is ErrNotInTeam).
func (st QueueSettings) InTeam(where, annotator string) error {
	if slices.Contains(st.Annotators, annotator) {
		return nil
	}
	return &queueError{kind: ErrNotInTeam, msg: fmt.Sprintf("%s is not in the team of %s (%s): gavel assign %s --replace --annotators … deals the queue again with them",
		strconv.Quote(annotator), where, quoteNames(st.Annotators), shellWord(where))}
}

// NoQueueError says that the session named where has no queue yet
// (errors.Is ErrNoQueue).
func NoQueueError(where string) error {
	return &queueError{kind: ErrNoQueue, msg: fmt.Sprintf("%s has no queue yet: gavel assign %s --annotators ana,bo,… deals its items to a team first", where, shellWord(where))}
}

// QueueExistsError refuses an Assign over the queue st of the session
// named where (errors.Is ErrQueueExists).
func QueueExistsError(where string, st QueueSettings) error {
	blind := ""
	if st.Blind {
		blind = "; blind"
	}
	return &queueError{kind: ErrQueueExists, msg: fmt.Sprintf("%s already has a queue (%s; overlap %s; seed %d%s; assigned %s): --replace deals it again, keeping what is already done",
		where, quoteNames(st.Annotators), strconv.FormatFloat(st.Overlap, 'g', -1, 64), st.Seed, blind, st.CreatedAt.Format("2006-01-02 15:04 UTC"))}
}

// queueError is a queue's message for the user, classified by a sentinel.
type queueError struct {
	kind error
	msg  string
}

func (e *queueError) Error() string        { return e.msg }
func (e *queueError) Is(target error) bool { return target == e.kind }

func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, a := range names {
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, ", ")
}

// Stamp is a time in the form sessions store times (UTC, milliseconds,
// fixed width, so text order is time order), for other backends.
func Stamp(t time.Time) string { return stamp(t) }

// ParseStamp reads a stored time.
func ParseStamp(s string) (time.Time, error) { return parseStamp(s) }

// CheckClaim validates Claim's arguments.
func CheckClaim(annotator string, n int) (string, error) {
	annotator = strings.TrimSpace(annotator)
	switch {
	case annotator == "":
		return "", errors.New("claiming needs an annotator name")
	case n < 1 || n > maxClaim:
		return "", fmt.Errorf("cannot claim %d items at once: ask for 1 to %d", n, maxClaim)
	}
	return annotator, nil
}
