package schedule

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/testclock"
)

func mustParse(t *testing.T, st SpecText) Spec {
	t.Helper()
	s, err := Parse(st)
	if err != nil {
		t.Fatalf("Parse(%+v): %v", st, err)
	}
	return s
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// TestNext: the times each kind of spec gives, read off a fake clock that
// moves from one run to the next.
func TestNext(t *testing.T) {
	tests := []struct {
		name  string
		spec  SpecText
		start string   // the clock
		want  []string // the next runs, each after the one before
	}{
		{"once ahead", SpecText{Once: "2026-05-01T09:00:00+02:00"}, "2026-04-30T00:00:00Z",
			[]string{"2026-05-01T07:00:00Z"}},
		{"once passed", SpecText{Once: "2026-05-01T09:00:00Z"}, "2026-05-01T09:00:00Z", nil},
		{"every 90s", SpecText{Every: "90s"}, "2026-01-01T00:00:00.7Z",
			[]string{"2026-01-01T00:01:30Z", "2026-01-01T00:03:00Z", "2026-01-01T00:04:30Z"}},
		{"every 1h30m", SpecText{Every: "1h30m"}, "2026-01-01T10:17:33Z",
			[]string{"2026-01-01T11:47:33Z", "2026-01-01T13:17:33Z"}},
		{"cron daily 03:00", SpecText{Cron: "0 3 * * *"}, "2026-01-01T03:00:00Z",
			[]string{"2026-01-02T03:00:00Z", "2026-01-03T03:00:00Z"}},
		{"cron weekdays 09:30 Paris", SpecText{Cron: "30 9 * * 1-5", Timezone: "Europe/Paris"}, "2026-01-02T12:00:00Z", // a Friday
			[]string{"2026-01-05T08:30:00Z", "2026-01-06T08:30:00Z"}},
		{"cron summer time Paris", SpecText{Cron: "30 9 * * *", Timezone: "Europe/Paris"}, "2026-07-01T00:00:00Z",
			[]string{"2026-07-01T07:30:00Z"}},
		{"cron every 15 min", SpecText{Cron: "*/15 * * * *"}, "2026-01-01T10:07:00Z",
			[]string{"2026-01-01T10:15:00Z", "2026-01-01T10:30:00Z", "2026-01-01T10:45:00Z", "2026-01-01T11:00:00Z"}},
		{"cron names", SpecText{Cron: "0 8 1 JAN,JUL MON-FRI"}, "2026-01-01T09:00:00Z", // dom OR dow, as cron does
			[]string{"2026-01-02T08:00:00Z", "2026-01-05T08:00:00Z"}},
		{"cron Tokyo", SpecText{Cron: "0 0 * * *", Timezone: "Asia/Tokyo"}, "2026-01-01T00:00:00Z",
			[]string{"2026-01-01T15:00:00Z"}},
		{"@yearly", SpecText{Cron: "@yearly"}, "2026-03-01T00:00:00Z", []string{"2027-01-01T00:00:00Z", "2028-01-01T00:00:00Z"}},
		{"@annually", SpecText{Cron: "@annually"}, "2026-03-01T00:00:00Z", []string{"2027-01-01T00:00:00Z"}},
		{"@monthly", SpecText{Cron: "@monthly"}, "2026-01-31T00:00:00Z", []string{"2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"}},
		{"@weekly", SpecText{Cron: "@weekly"}, "2026-01-01T00:00:00Z", []string{"2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"}}, // Sundays
		{"@daily New York", SpecText{Cron: "@daily", Timezone: "America/New_York"}, "2026-01-01T12:00:00Z",
			[]string{"2026-01-02T05:00:00Z"}},
		{"@midnight", SpecText{Cron: "@midnight"}, "2026-01-01T12:00:00Z", []string{"2026-01-02T00:00:00Z"}},
		{"@hourly", SpecText{Cron: "@hourly"}, "2026-01-01T12:00:00Z", []string{"2026-01-01T13:00:00Z", "2026-01-01T14:00:00Z"}},
		{"leap day", SpecText{Cron: "0 0 29 2 *"}, "2026-01-01T00:00:00Z", []string{"2028-02-29T00:00:00Z"}},

		// Daylight saving time, the way robfig/cron handles it. New York
		// springs forward on 2026-03-08 (02:00 EST → 03:00 EDT) and falls
		// back on 2026-11-01 (02:00 EDT → 01:00 EST).
		{"spring forward: 02:30 does not occur that day", SpecText{Cron: "30 2 * * *", Timezone: "America/New_York"},
			"2026-03-07T12:00:00Z", []string{"2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z"}},
		{"spring forward: hourly skips the missing hour", SpecText{Cron: "0 * * * *", Timezone: "America/New_York"},
			"2026-03-08T05:30:00Z", // 00:30 EST
			[]string{"2026-03-08T06:00:00Z", "2026-03-08T07:00:00Z", "2026-03-08T08:00:00Z"}}, // 01:00 EST, 03:00 EDT, 04:00 EDT
		{"spring forward: 03:30 keeps its wall time", SpecText{Cron: "30 3 * * *", Timezone: "America/New_York"},
			"2026-03-07T12:00:00Z", []string{"2026-03-08T07:30:00Z", "2026-03-09T07:30:00Z"}},
		{"fall back: 01:30 occurs twice", SpecText{Cron: "30 1 * * *", Timezone: "America/New_York"},
			"2026-10-31T12:00:00Z", []string{"2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", "2026-11-02T06:30:00Z"}},
		{"fall back: 03:00 once", SpecText{Cron: "0 3 * * *", Timezone: "America/New_York"},
			"2026-10-31T12:00:00Z", []string{"2026-11-01T08:00:00Z", "2026-11-02T08:00:00Z"}},
		{"Paris springs forward: 02:30 does not occur", SpecText{Cron: "30 2 * * *", Timezone: "Europe/Paris"},
			"2026-03-28T12:00:00Z", []string{"2026-03-30T00:30:00Z"}},
		{"Paris falls back: 02:30 occurs twice", SpecText{Cron: "30 2 * * *", Timezone: "Europe/Paris"},
			"2026-10-24T12:00:00Z", []string{"2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z", "2026-10-26T01:30:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.spec)
			clock := testclock.New(utc(tt.start))
			var got []string
			for range len(tt.want) + 1 {
				next, ok := s.Next(clock.Now())
				if !ok {
					break
				}
				if !next.After(clock.Now()) || next.Location() != time.UTC {
					t.Fatalf("Next(%s) = %s: not after it, or not UTC", clock.Now(), next)
				}
				got = append(got, next.Format(time.RFC3339))
				clock.Advance(next.Sub(clock.Now()))
				if s.Kind() == KindOnce {
					break
				}
			}
			if len(got) > len(tt.want) {
				got = got[:len(tt.want)]
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("runs from %s:\n got %v\nwant %v", tt.start, got, tt.want)
			}
		})
	}
}

// TestFollowing: after a run taken late, the next run is the first to
// come, in the series of the one taken.
func TestFollowing(t *testing.T) {
	tests := []struct {
		name     string
		spec     SpecText
		due, now string
		want     string // "" for none
	}{
		{"every on time", SpecText{Every: "1h"}, "2026-01-01T10:00:00Z", "2026-01-01T10:00:00Z", "2026-01-01T11:00:00Z"},
		{"every a little late", SpecText{Every: "1h"}, "2026-01-01T10:00:00Z", "2026-01-01T10:00:02Z", "2026-01-01T11:00:00Z"},
		{"every after a day down keeps its phase", SpecText{Every: "1h"}, "2026-01-01T10:00:00Z", "2026-01-02T13:30:00Z", "2026-01-02T14:00:00Z"},
		{"every exactly on a later time", SpecText{Every: "1h"}, "2026-01-01T10:00:00Z", "2026-01-01T12:00:00Z", "2026-01-01T13:00:00Z"},
		{"cron after a week down", SpecText{Cron: "0 3 * * *"}, "2026-01-01T03:00:00Z", "2026-01-08T09:00:00Z", "2026-01-09T03:00:00Z"},
		{"once has none", SpecText{Once: "2026-01-01T03:00:00Z"}, "2026-01-01T03:00:00Z", "2026-01-01T03:00:00Z", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, ok := mustParse(t, tt.spec).Following(utc(tt.due), utc(tt.now))
			got := ""
			if ok {
				got = next.Format(time.RFC3339)
			}
			if got != tt.want {
				t.Errorf("Following(%s, %s) = %q, want %q", tt.due, tt.now, got, tt.want)
			}
		})
	}
}

// TestParseInvalid: what is wrong, in which field, at which offset.
func TestParseInvalid(t *testing.T) {
	tests := []struct {
		name   string
		spec   SpecText
		field  string
		offset int
		msg    string // a part of the message
	}{
		{"nothing", SpecText{}, "", -1, "needs one of once, every or cron"},
		{"two kinds", SpecText{Every: "1h", Cron: "@daily"}, "cron", -1, "every and cron are both set"},
		{"once not RFC 3339", SpecText{Once: "2026-05-01 09:00"}, "once", -1, "not an RFC 3339 time"},
		{"once without offset", SpecText{Once: "2026-05-01T09:00:00"}, "once", -1, "not an RFC 3339 time"},
		{"every not a duration", SpecText{Every: "daily"}, "every", -1, `"daily" is not a duration`},
		{"every without unit", SpecText{Every: "60"}, "every", -1, "not a duration"},
		{"every too short", SpecText{Every: "500ms"}, "every", -1, "shorter than the minimum, 1s"},
		{"every negative", SpecText{Every: "-1h"}, "every", -1, "negative"},
		{"timezone unknown", SpecText{Cron: "@daily", Timezone: "Mars/Olympus"}, "timezone", -1, "not an IANA time zone"},
		{"timezone Local", SpecText{Cron: "@daily", Timezone: "Local"}, "timezone", -1, "depends on the host"},
		{"timezone with every", SpecText{Every: "1h", Timezone: "Europe/Paris"}, "timezone", -1, "only a cron schedule"},
		{"cron six fields", SpecText{Cron: "0 0 3 * * *"}, "cron", -1, "has 6 fields; cron takes five"},
		{"cron four fields", SpecText{Cron: "0 3 * *"}, "cron", -1, "has 4 fields"},
		{"cron hour out of range", SpecText{Cron: "0 25 * * *"}, "cron", 2, "hour field \"25\""},
		{"cron minute garbage", SpecText{Cron: "x 3 * * *"}, "cron", 0, "minute field \"x\""},
		{"cron month name", SpecText{Cron: "0 3 1 FOO *"}, "cron", 6, "month field \"FOO\""},
		{"cron day of week", SpecText{Cron: "0  3 * * 8"}, "cron", 9, "day-of-week field \"8\""},
		{"cron zero step", SpecText{Cron: "*/0 * * * *"}, "cron", 0, "minute field"},
		{"cron never", SpecText{Cron: "0 0 30 2 *"}, "cron", -1, "matches no date"},
		{"cron unknown descriptor", SpecText{Cron: "@fortnightly"}, "cron", 0, "unknown descriptor"},
		{"cron @every", SpecText{Cron: "@every 1h"}, "cron", 0, "use every:"},
		{"cron TZ prefix", SpecText{Cron: "TZ=UTC"}, "cron", 0, "put the time zone in timezone"},
		{"cron CRON_TZ prefix", SpecText{Cron: "CRON_TZ=Europe/Paris 0 3 * * *"}, "cron", 0, "put the time zone in timezone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.spec)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Parse(%+v) = %v, want a *ValidationError", tt.spec, err)
			}
			if ve.Field != tt.field || ve.Offset != tt.offset || !strings.Contains(ve.Msg, tt.msg) {
				t.Errorf("Parse(%+v): field %q offset %d %q; want field %q offset %d and %q",
					tt.spec, ve.Field, ve.Offset, ve.Msg, tt.field, tt.offset, tt.msg)
			}
		})
	}
}

// TestSpecText: Text is the inverse of Parse, and JSON goes through it.
func TestSpecText(t *testing.T) {
	for _, st := range []SpecText{
		{Once: "2026-05-01T07:00:00Z"},
		{Every: "1h30m0s"},
		{Cron: "0 3 * * 1-5", Timezone: "Europe/Paris"},
		{Cron: "@daily"},
	} {
		s := mustParse(t, st)
		if s.Text() != st {
			t.Errorf("Parse(%+v).Text() = %+v", st, s.Text())
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Spec
		if err := json.Unmarshal(b, &back); err != nil || !back.Equal(s) {
			t.Errorf("%s: back as %+v, %v", b, back, err)
		}
	}
	if got := mustParse(t, SpecText{Cron: "0 3 * * *", Timezone: "Europe/Paris"}).String(); got != "cron 0 3 * * * (Europe/Paris)" {
		t.Errorf("String() = %q", got)
	}
	var s Spec
	if err := json.Unmarshal([]byte(`{"cron":"0 25 * * *"}`), &s); err == nil {
		t.Error("an invalid spec decoded")
	}
}

// FuzzParse: no input makes Parse panic, and what it accepts has a next
// time or says it has none consistently, and an Interval no longer than
// the gap between its first two runs.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0 3 * * *", "@daily", "*/15 9-17 * JAN-DEC MON-FRI", "TZ=UTC", "0 0 30 2 *", "1-5/2,7 * ? * SUN"} {
		f.Add(s, "", "")
	}
	f.Add("", "1h", "")
	f.Add("", "", "2026-05-01T09:00:00Z")
	f.Fuzz(func(t *testing.T, cronExpr, every, once string) {
		s, err := Parse(SpecText{Cron: cronExpr, Every: every, Once: once})
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v is not a *ValidationError", err)
			}
			if ve.Offset >= 0 && ve.Offset > len(ve.Value) {
				t.Fatalf("offset %d beyond %q", ve.Offset, ve.Value)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Parse accepted what Validate refuses: %v", err)
		}
		if s.Kind() != KindOnce {
			if _, ok := s.Next(never); !ok {
				t.Fatalf("%s: no next time", s)
			}
		}
		if gap, ok := s.Interval(never); ok && (gap <= 0 || (s.Kind() == KindEvery && gap != s.Every)) {
			t.Fatalf("%s: Interval = %s", s, gap)
		} else if ok && s.Kind() == KindCron {
			a, _ := s.Next(never)
			if b, more := s.Next(a); more && b.Sub(a) < gap {
				t.Fatalf("%s: runs at %s and %s, closer than its Interval %s", s, a, b, gap)
			}
		}
	})
}
