package schedule

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // IANA zones even where the host has none (a static binary in an empty image)

	"github.com/robfig/cron/v3"
)

// MinEvery is the shortest interval of an every schedule.
const MinEvery = time.Second

// Spec says when a schedule runs: exactly one of Once, Every and Cron.
type Spec struct {
	// Once is the one time a once schedule runs (RFC 3339 in text).
	Once time.Time
	// Every is the interval of an every schedule (a Go duration in text:
	// "90s", "1h30m"), at least MinEvery. Its runs keep the phase of the
	// first: they fall on first + k·Every, whole seconds.
	Every time.Duration
	// Cron is a cron expression: five fields (minute hour day-of-month
	// month day-of-week) or a descriptor (@yearly, @annually, @monthly,
	// @weekly, @daily, @midnight, @hourly), evaluated in Timezone.
	Cron string
	// Timezone is the IANA zone Cron is evaluated in ("Europe/Paris");
	// empty is UTC. Only cron schedules have one.
	Timezone string
}

// SpecText is a Spec as a file or a request writes it: strings, of which
// exactly one of Once, Every and Cron is set. It is also Spec's JSON form.
type SpecText struct {
	Once     string `json:"once,omitempty" yaml:"once,omitempty"`
	Every    string `json:"every,omitempty" yaml:"every,omitempty"`
	Cron     string `json:"cron,omitempty" yaml:"cron,omitempty"`
	Timezone string `json:"timezone,omitempty" yaml:"timezone,omitempty"`
}

// The kinds of spec, as Kind names them.
const (
	KindOnce  = "once"
	KindEvery = "every"
	KindCron  = "cron"
)

// cronParser is the standard five fields plus descriptors. A parser is a
// value holding its options: sharing it is not global state.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// cronFields name the five fields, for errors.
var cronFields = [5]string{"minute", "hour", "day-of-month", "month", "day-of-week"}

// Parse reads t into a Spec and validates it. Its errors are
// *ValidationError naming the field (once, every, cron, timezone) and,
// within a cron expression, the offset of the part that is wrong.
func Parse(t SpecText) (Spec, error) {
	var s Spec
	set := t.set()
	switch {
	case len(set) == 0:
		return Spec{}, &ValidationError{Offset: -1, Msg: "a schedule needs one of once, every or cron"}
	case len(set) > 1:
		return Spec{}, &ValidationError{Field: set[1], Offset: -1,
			Msg: fmt.Sprintf("%s and %s are both set; a schedule has exactly one of once, every and cron", set[0], set[1])}
	}
	switch {
	case t.Once != "":
		at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(t.Once))
		if err != nil {
			return Spec{}, &ValidationError{Field: KindOnce, Value: t.Once, Offset: -1,
				Msg: fmt.Sprintf("%q is not an RFC 3339 time such as 2026-05-01T09:00:00Z or 2026-05-01T09:00:00+02:00", t.Once)}
		}
		s.Once = at.UTC()
	case t.Every != "":
		d, err := time.ParseDuration(strings.TrimSpace(t.Every))
		if err != nil {
			return Spec{}, &ValidationError{Field: KindEvery, Value: t.Every, Offset: -1,
				Msg: fmt.Sprintf("%q is not a duration such as 30s, 15m or 1h30m", t.Every)}
		}
		s.Every = d
	default:
		s.Cron = strings.TrimSpace(t.Cron)
	}
	s.Timezone = strings.TrimSpace(t.Timezone)
	if err := s.Validate(); err != nil {
		return Spec{}, err
	}
	return s, nil
}

// set names the kinds t sets, in the order once, every, cron.
func (t SpecText) set() []string {
	var set []string
	for _, f := range []struct{ name, v string }{{KindOnce, t.Once}, {KindEvery, t.Every}, {KindCron, t.Cron}} {
		if strings.TrimSpace(f.v) != "" {
			set = append(set, f.name)
		}
	}
	return set
}

// Kind is KindOnce, KindEvery or KindCron; "" for a Spec with none set.
func (s Spec) Kind() string {
	switch {
	case s.Cron != "":
		return KindCron
	case s.Every != 0:
		return KindEvery
	case !s.Once.IsZero():
		return KindOnce
	}
	return ""
}

// Validate checks that s sets exactly one of Once, Every and Cron, that
// Every is at least MinEvery, that Cron parses and matches some date, and
// that Timezone is an IANA zone given only with Cron. Its errors are
// *ValidationError.
func (s Spec) Validate() error {
	n := 0
	for _, set := range []bool{!s.Once.IsZero(), s.Every != 0, s.Cron != ""} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return &ValidationError{Offset: -1, Msg: "a schedule needs one of once, every or cron"}
	case n > 1:
		return &ValidationError{Offset: -1, Msg: "a schedule has exactly one of once, every and cron"}
	}
	if s.Timezone != "" && s.Cron == "" {
		return &ValidationError{Field: "timezone", Value: s.Timezone, Offset: -1,
			Msg: "only a cron schedule has a time zone; once takes an RFC 3339 time with its offset, every is an interval"}
	}
	switch {
	case s.Every < 0:
		return &ValidationError{Field: KindEvery, Value: s.Every.String(), Offset: -1, Msg: fmt.Sprintf("%s is negative", s.Every)}
	case s.Every != 0 && s.Every < MinEvery:
		return &ValidationError{Field: KindEvery, Value: s.Every.String(), Offset: -1,
			Msg: fmt.Sprintf("%s is shorter than the minimum, %s", s.Every, MinEvery)}
	case s.Cron != "":
		_, err := s.cron()
		return err
	}
	return nil
}

// location is s's time zone: UTC when Timezone is empty.
func (s Spec) location() (*time.Location, error) {
	switch s.Timezone {
	case "", "UTC":
		return time.UTC, nil
	case "Local":
		return nil, &ValidationError{Field: "timezone", Value: s.Timezone, Offset: -1,
			Msg: `"Local" depends on the host; name an IANA zone such as Europe/Paris`}
	}
	loc, err := time.LoadLocation(s.Timezone)
	if err != nil {
		return nil, &ValidationError{Field: "timezone", Value: s.Timezone, Offset: -1,
			Msg: fmt.Sprintf("%q is not an IANA time zone such as Europe/Paris or America/New_York", s.Timezone)}
	}
	return loc, nil
}

// never is the date from which Validate looks for a cron expression's
// first match: a fixed one (a leap year), so that validating does not
// depend on the day.
var never = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// cron parses s.Cron in s's zone.
func (s Spec) cron() (*cron.SpecSchedule, error) {
	loc, err := s.location()
	if err != nil {
		return nil, err
	}
	expr := s.Cron
	verr := func(offset int, format string, args ...any) error {
		return &ValidationError{Field: KindCron, Value: expr, Offset: offset, Msg: fmt.Sprintf(format, args...)}
	}
	if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
		return nil, verr(0, "put the time zone in timezone, not in the expression")
	}
	if strings.HasPrefix(expr, "@") {
		if strings.HasPrefix(expr, "@every") {
			return nil, verr(0, "@every is not a cron descriptor here; use every: with a duration (every: 1h30m)")
		}
		if strings.ContainsAny(expr, " \t") {
			return nil, verr(0, "a descriptor stands alone: @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly")
		}
	} else if fields := strings.Fields(expr); len(fields) != 5 {
		return nil, verr(-1, "%q has %d fields; cron takes five: minute hour day-of-month month day-of-week (no seconds)", expr, len(fields))
	}
	sched, err := parseCron(expr)
	if err != nil {
		if strings.HasPrefix(expr, "@") {
			return nil, verr(0, "unknown descriptor %q; use @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly", expr)
		}
		return nil, cronFieldError(expr, err)
	}
	spec, ok := sched.(*cron.SpecSchedule)
	if !ok {
		return nil, verr(-1, "%q is not a calendar schedule", expr)
	}
	spec.Location = loc
	if spec.Next(never).IsZero() {
		return nil, verr(-1, "%q matches no date (a day that no month has?)", expr)
	}
	return spec, nil
}

// parseCron is the parser's Parse, with a panic of the parser made an
// error.
func parseCron(expr string) (sched cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			sched, err = nil, fmt.Errorf("cannot parse %q", expr)
		}
	}()
	return cronParser.Parse(expr)
}

// cronFieldError finds which of expr's five fields err is about, by
// parsing each alone among stars, and says so with its offset.
func cronFieldError(expr string, err error) error {
	offsets := fieldOffsets(expr)
	fields := strings.Fields(expr)
	for i, f := range fields {
		probe := []string{"*", "*", "*", "*", "*"}
		probe[i] = f
		if _, ferr := parseCron(strings.Join(probe, " ")); ferr != nil {
			return &ValidationError{Field: KindCron, Value: expr, Offset: offsets[i],
				Msg: fmt.Sprintf("%s field %q: %v", cronFields[i], f, ferr)}
		}
	}
	return &ValidationError{Field: KindCron, Value: expr, Offset: -1, Msg: fmt.Sprintf("%q: %v", expr, err)}
}

// fieldOffsets are the byte offsets of the whitespace-separated fields of
// s.
func fieldOffsets(s string) []int {
	var out []int
	in := false
	for i, r := range s {
		space := r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
		if !space && !in {
			out = append(out, i)
		}
		in = !space
	}
	return out
}

// Next is the first time after after that s runs, in UTC, and false when
// there is none (a once schedule whose time is not after after, or an
// invalid spec). A cron schedule is evaluated in its zone and follows
// robfig/cron's handling of daylight saving time: a time that a
// spring-forward skips (02:30 on that night in most of Europe and North
// America) does not occur that day, and a time that a fall-back repeats
// (01:30 in North America) occurs twice, once at each offset.
func (s Spec) Next(after time.Time) (time.Time, bool) {
	switch s.Kind() {
	case KindOnce:
		return s.Once.UTC(), s.Once.After(after)
	case KindEvery:
		if s.Every < MinEvery {
			return time.Time{}, false
		}
		return after.Truncate(time.Second).Add(s.Every).UTC(), true
	case KindCron:
		sched, err := s.cron()
		if err != nil {
			return time.Time{}, false
		}
		next := sched.Next(after)
		return next.UTC(), !next.IsZero()
	}
	return time.Time{}, false
}

// Following is the first time after now of the series of runs that due
// belongs to, for a run due at due and taken at now (not before due): a
// run late by several periods (the gateway was down) is followed by the
// next time to come, not by the ones it missed. An every schedule keeps
// its phase (due + k·Every); a cron schedule takes its next match after
// now; a once schedule has none.
func (s Spec) Following(due, now time.Time) (time.Time, bool) {
	switch s.Kind() {
	case KindOnce:
		return time.Time{}, false
	case KindEvery:
		if s.Every < MinEvery {
			return time.Time{}, false
		}
		if now.Before(due) {
			return due.UTC(), true
		}
		k := now.Sub(due)/s.Every + 1
		return due.Add(k * s.Every).UTC(), true
	}
	return s.Next(now)
}

// Text is s as strings, the inverse of Parse.
func (s Spec) Text() SpecText {
	t := SpecText{Cron: s.Cron, Timezone: s.Timezone}
	if !s.Once.IsZero() {
		t.Once = s.Once.UTC().Format(time.RFC3339Nano)
	}
	if s.Every != 0 {
		t.Every = s.Every.String()
	}
	return t
}

// String is s in a few words: "every 1h0m0s", "cron 0 3 * * * (Europe/Paris)",
// "once 2026-05-01T09:00:00Z".
func (s Spec) String() string {
	t := s.Text()
	switch s.Kind() {
	case KindOnce:
		return "once " + t.Once
	case KindEvery:
		return "every " + t.Every
	case KindCron:
		if s.Timezone != "" {
			return fmt.Sprintf("cron %s (%s)", s.Cron, s.Timezone)
		}
		return "cron " + s.Cron
	}
	return "(no schedule)"
}

// Equal reports whether s and o say the same.
func (s Spec) Equal(o Spec) bool { return s.Text() == o.Text() }

// MarshalJSON writes s as its SpecText.
func (s Spec) MarshalJSON() ([]byte, error) { return json.Marshal(s.Text()) }

// UnmarshalJSON reads a SpecText and parses it.
func (s *Spec) UnmarshalJSON(b []byte) error {
	var t SpecText
	if err := json.Unmarshal(b, &t); err != nil {
		return err
	}
	p, err := Parse(t)
	if err != nil {
		return err
	}
	*s = p
	return nil
}

// intervalDays is how many days Interval looks at for two days that
// run: 28 years, after which the weekdays of the dates repeat (leap years
// aside).
const intervalDays = 28 * 366

// starBit marks a cron field written as * (robfig/cron's own marker).
const starBit = 1 << 63

// Interval is the shortest time between two consecutive runs of s, and
// false for a once schedule (a single run), an invalid spec, or a cron
// schedule that runs on fewer than two days in intervalDays from from and
// once on those days. An every schedule's is Every. A cron schedule's is
// read from its fields: every day it runs has the same hours and minutes,
// so its shortest gap is the shortest within a day, or, between two days
// that run k days apart (the closest such days from from), k days less
// the span of a day's runs. The hour that a daylight saving change
// repeats or skips is not counted.
func (s Spec) Interval(from time.Time) (time.Duration, bool) {
	switch s.Kind() {
	case KindEvery:
		return s.Every, s.Every >= MinEvery
	case KindCron:
	default:
		return 0, false
	}
	sched, err := s.cron()
	if err != nil {
		return 0, false
	}
	var minutes []int // the minutes of a day it runs at, in order
	for h := range 24 {
		for m := range 60 {
			if sched.Hour&(1<<uint(h)) != 0 && sched.Minute&(1<<uint(m)) != 0 {
				minutes = append(minutes, h*60+m)
			}
		}
	}
	if len(minutes) == 0 {
		return 0, false
	}
	shortest := -1
	for i := 1; i < len(minutes); i++ {
		if gap := minutes[i] - minutes[i-1]; shortest < 0 || gap < shortest {
			shortest = gap
		}
	}
	if k := closestDays(sched, from); k > 0 {
		if gap := k*24*60 - (minutes[len(minutes)-1] - minutes[0]); shortest < 0 || gap < shortest {
			shortest = gap
		}
	}
	if shortest <= 0 {
		return 0, false
	}
	return time.Duration(shortest) * time.Minute, true
}

// closestDays is the fewest days between two days sched runs on, of the
// days in intervalDays from from's; 0 when fewer than two run.
func closestDays(sched *cron.SpecSchedule, from time.Time) int {
	local := from.In(sched.Location)
	day := time.Date(local.Year(), local.Month(), local.Day(), 12, 0, 0, 0, time.UTC)
	closest, last := 0, -1
	for i := range intervalDays {
		d := day.AddDate(0, 0, i)
		if !runsOn(sched, d) {
			continue
		}
		if last >= 0 && (closest == 0 || i-last < closest) {
			closest = i - last
			if closest == 1 {
				break
			}
		}
		last = i
	}
	return closest
}

// runsOn reports whether sched runs on d's date, as robfig/cron decides:
// the month matches, and the day of the month and the day of the week
// both do when either is *, else either does.
func runsOn(sched *cron.SpecSchedule, d time.Time) bool {
	if sched.Month&(1<<uint(d.Month())) == 0 {
		return false
	}
	dom := sched.Dom&(1<<uint(d.Day())) != 0
	dow := sched.Dow&(1<<uint(d.Weekday())) != 0
	if sched.Dom&starBit != 0 || sched.Dow&starBit != 0 {
		return dom && dow
	}
	return dom || dow
}
