//! The engine loop, generic over the upper layers' event type.
//!
//! A [`Model`] owns all simulation state and handles one event at a time;
//! the [`Engine`] owns the clock and the pending-event set and never looks
//! inside events. Models schedule through the [`Schedule`] trait, so a layer
//! can be written against its own event enum and lifted into the enum of
//! the layer above with [`Lift`] (the machine's `NetEvent` becomes one arm
//! of the MPI layer's event, without boxing or downcasts).

use crate::queue::{EventId, EventQueue};
use crate::time::Time;
use std::marker::PhantomData;

/// What a model may do while handling an event: read the clock and change
/// the pending-event set.
pub trait Schedule<E> {
    /// The current simulated time.
    fn now(&self) -> Time;
    /// Schedules `event` at absolute time `at` (`at >= now()`; an earlier
    /// time is a causality bug and panics), with a handle to cancel or move
    /// it. Use [`Schedule::post_at`] for events that always fire: it is
    /// cheaper (see [`crate::queue`]).
    fn schedule_at(&mut self, at: Time, event: E) -> EventId;
    /// Schedules `event` `delay` after now, with a handle.
    fn schedule_in(&mut self, delay: Time, event: E) -> EventId {
        let at = self.now() + delay;
        self.schedule_at(at, event)
    }
    /// Schedules `event` at `at` (`at >= now()`) without a handle: it will
    /// fire. Same ordering as [`Schedule::schedule_at`].
    fn post_at(&mut self, at: Time, event: E);
    /// Schedules `event` `delay` after now without a handle.
    fn post_in(&mut self, delay: Time, event: E) {
        let at = self.now() + delay;
        self.post_at(at, event)
    }
    /// Cancels a pending event; `false` if it is not pending.
    fn cancel(&mut self, id: EventId) -> bool;
    /// Moves a pending event to `at` (`at >= now()`), behind events already
    /// pending at `at`; `false` if it is not pending.
    fn reschedule(&mut self, id: EventId, at: Time) -> bool;
}

/// The scheduler handed to [`Model::handle`]: the queue plus the clock.
pub struct Scheduler<'a, E> {
    queue: &'a mut EventQueue<E>,
    now: Time,
}

impl<'a, E> std::fmt::Debug for Scheduler<'a, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheduler").finish_non_exhaustive()
    }
}

impl<'a, E> Scheduler<'a, E> {
    /// A scheduler over `queue` at time `now` (for driving models by hand in
    /// tests; the engine builds its own).
    pub fn new(queue: &'a mut EventQueue<E>, now: Time) -> Self {
        Scheduler { queue, now }
    }
}

#[inline]
fn check_causal(now: Time, at: Time) {
    assert!(
        at >= now,
        "event scheduled in the past: at {at:?} while now is {now:?}"
    );
}

impl<E> Schedule<E> for Scheduler<'_, E> {
    fn now(&self) -> Time {
        self.now
    }
    fn schedule_at(&mut self, at: Time, event: E) -> EventId {
        check_causal(self.now, at);
        self.queue.schedule(at, event)
    }
    fn post_at(&mut self, at: Time, event: E) {
        check_causal(self.now, at);
        self.queue.post(at, event)
    }
    fn cancel(&mut self, id: EventId) -> bool {
        self.queue.cancel(id).is_some()
    }
    fn reschedule(&mut self, id: EventId, at: Time) -> bool {
        check_causal(self.now, at);
        self.queue.reschedule(id, at)
    }
}

/// Schedules events of an inner layer's type `I` into a scheduler `S` of
/// the outer type `O` (via `O: From<I>`). Both types are parameters so that
/// method calls on a `Lift` never need annotations.
pub struct Lift<'a, S, O, I> {
    inner: &'a mut S,
    _types: PhantomData<fn(I) -> O>,
}

impl<'a, S, O, I> std::fmt::Debug for Lift<'a, S, O, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lift").finish_non_exhaustive()
    }
}

impl<'a, S, O, I> Lift<'a, S, O, I>
where
    S: Schedule<O>,
    O: From<I>,
{
    /// Wraps an outer scheduler.
    pub fn new(inner: &'a mut S) -> Self {
        Lift {
            inner,
            _types: PhantomData,
        }
    }
}

impl<S, I, O> Schedule<I> for Lift<'_, S, O, I>
where
    S: Schedule<O>,
    O: From<I>,
{
    fn now(&self) -> Time {
        self.inner.now()
    }
    fn schedule_at(&mut self, at: Time, event: I) -> EventId {
        self.inner.schedule_at(at, O::from(event))
    }
    fn post_at(&mut self, at: Time, event: I) {
        self.inner.post_at(at, O::from(event))
    }
    fn cancel(&mut self, id: EventId) -> bool {
        self.inner.cancel(id)
    }
    fn reschedule(&mut self, id: EventId, at: Time) -> bool {
        self.inner.reschedule(id, at)
    }
}

/// A simulation: state plus the rule for handling one event.
pub trait Model {
    /// The closed set of events this model understands.
    type Event;
    /// Handles `event` at `sched.now()`.
    fn handle(&mut self, event: Self::Event, sched: &mut Scheduler<'_, Self::Event>);
}

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// No event is pending.
    Exhausted,
    /// The next pending event lies beyond the time limit.
    TimeLimit,
    /// The caller's condition became false.
    Condition,
}

/// The clock, the pending events and the count of handled events.
pub struct Engine<E> {
    queue: EventQueue<E>,
    now: Time,
    events: u64,
}

impl<E> std::fmt::Debug for Engine<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").finish_non_exhaustive()
    }
}

impl<E> Default for Engine<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Engine<E> {
    /// An engine at time zero with no pending events.
    pub fn new() -> Self {
        Self::with_queue(EventQueue::new())
    }

    /// An engine over an existing (e.g. pre-sized) queue.
    pub fn with_queue(queue: EventQueue<E>) -> Self {
        Engine {
            queue,
            now: Time::ZERO,
            events: 0,
        }
    }

    /// The current simulated time: the time of the last handled event, or
    /// the limit of the last `run_until` that stopped on its limit.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Events handled so far.
    pub fn events_handled(&self) -> u64 {
        self.events
    }

    /// The time of the next pending event, if any.
    pub fn next_time(&self) -> Option<Time> {
        self.queue.peek_time()
    }

    /// Events pending.
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// A scheduler at the current time, to seed initial events or to act on
    /// the queue between runs.
    pub fn scheduler(&mut self) -> Scheduler<'_, E> {
        Scheduler {
            queue: &mut self.queue,
            now: self.now,
        }
    }

    /// Handles the next event, if any. Returns whether one was handled.
    pub fn step<M: Model<Event = E>>(&mut self, model: &mut M) -> bool {
        match self.queue.pop() {
            Some((t, _, ev)) => {
                self.now = t;
                self.events += 1;
                let mut s = Scheduler {
                    queue: &mut self.queue,
                    now: t,
                };
                model.handle(ev, &mut s);
                true
            }
            None => false,
        }
    }

    /// Runs until no event is pending.
    pub fn run<M: Model<Event = E>>(&mut self, model: &mut M) -> Stop {
        while self.step(model) {}
        Stop::Exhausted
    }

    /// Handles every event with time `<= limit`. If events remain beyond
    /// the limit, the clock is advanced to `limit` and `TimeLimit` returned.
    pub fn run_until<M: Model<Event = E>>(&mut self, model: &mut M, limit: Time) -> Stop {
        let stop = self.run_while_until(model, limit, |_, _| true);
        if stop == Stop::TimeLimit {
            self.now = self.now.max(limit);
        }
        stop
    }

    /// Handles events while `cond(model, now)` holds; the condition is
    /// checked before each event.
    pub fn run_while<M, F>(&mut self, model: &mut M, cond: F) -> Stop
    where
        M: Model<Event = E>,
        F: FnMut(&M, Time) -> bool,
    {
        self.run_while_until(model, Time::MAX, cond)
    }

    /// Handles events while the next one's time is `<= limit` and
    /// `cond(model, now)` holds (checked before each event, after the
    /// limit). On `TimeLimit` the clock stays at the last event handled
    /// and [`Engine::next_time`] gives the event beyond the limit.
    pub fn run_while_until<M, F>(&mut self, model: &mut M, limit: Time, mut cond: F) -> Stop
    where
        M: Model<Event = E>,
        F: FnMut(&M, Time) -> bool,
    {
        loop {
            match self.queue.front_time() {
                None => return Stop::Exhausted,
                Some(t) if t > limit => return Stop::TimeLimit,
                Some(_) => {}
            }
            if !cond(model, self.now) {
                return Stop::Condition;
            }
            self.step(model);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ping that re-arms itself `period` later, `left` more times, and
    /// logs when it ran.
    struct Ticker {
        period: Time,
        left: u32,
        log: Vec<Time>,
    }
    impl Model for Ticker {
        type Event = ();
        fn handle(&mut self, _: (), s: &mut Scheduler<'_, ()>) {
            self.log.push(s.now());
            if self.left > 0 {
                self.left -= 1;
                s.post_in(self.period, ());
            }
        }
    }

    #[test]
    fn run_modes() {
        let mut m = Ticker {
            period: Time::from_ns(10),
            left: 9,
            log: vec![],
        };
        let mut e = Engine::new();
        e.scheduler().schedule_at(Time::ZERO, ());
        assert_eq!(e.run_until(&mut m, Time::from_ns(35)), Stop::TimeLimit);
        assert_eq!(e.now(), Time::from_ns(35));
        assert_eq!(m.log.len(), 4);
        assert_eq!(e.run_while(&mut m, |m, _| m.log.len() < 6), Stop::Condition);
        assert_eq!(m.log.len(), 6);
        assert_eq!(e.run(&mut m), Stop::Exhausted);
        assert_eq!(m.log.len(), 10);
        assert_eq!(e.events_handled(), 10);
        assert_eq!(e.now(), Time::from_ns(90));
    }

    #[derive(Debug, PartialEq)]
    enum Inner {
        A,
    }
    #[derive(Debug, PartialEq)]
    enum Outer {
        In(Inner),
    }
    impl From<Inner> for Outer {
        fn from(i: Inner) -> Self {
            Outer::In(i)
        }
    }

    #[test]
    fn lift_schedules_into_outer_enum() {
        let mut q = EventQueue::<Outer>::new();
        let mut s = Scheduler::new(&mut q, Time::from_ns(1));
        let mut lifted: Lift<'_, _, Outer, Inner> = Lift::new(&mut s);
        let id = lifted.schedule_in(Time::from_ns(2), Inner::A);
        assert!(lifted.reschedule(id, Time::from_ns(5)));
        assert_eq!(
            q.pop().map(|(t, _, e)| (t, e)),
            Some((Time::from_ns(5), Outer::In(Inner::A)))
        );
    }

    #[test]
    #[should_panic(expected = "in the past")]
    fn scheduling_in_the_past_panics() {
        let mut q = EventQueue::<()>::new();
        let mut s = Scheduler::new(&mut q, Time::from_ns(10));
        s.schedule_at(Time::from_ns(9), ());
    }
}
