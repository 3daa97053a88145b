// Package jsonnum decodes JSON kept by the gateway so that its numbers come
// back as they were before it was kept: whole numbers as ints, so that
// templates print 10000000, not 1e+07. A paused run's record and plan
// state (agent/runstate) and a paused run's conversation turn
// (conversation/binding) decode through it, one copy for both. It imports
// nothing of the project, so that any package may use it.
package jsonnum
