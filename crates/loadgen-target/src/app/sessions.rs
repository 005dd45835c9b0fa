//! The login sessions of the app, shared by every connection of every
//! protocol. The store is bounded: when it is full, starting a session
//! evicts the one used least recently, so a long run that keeps logging in
//! cannot grow it without limit.

use std::collections::{BTreeMap, HashMap};

use super::ids::Id;

/// Enough for a scenario with tens of thousands of virtual users, each with
/// a session, at about 200 bytes a session.
pub(crate) const MAX_SESSIONS: usize = 100_000;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Session {
    /// The token the login form must send back with this session's cookie.
    pub(crate) csrf: Id,
    /// Who logged in, once somebody did.
    pub(crate) user: Option<User>,
    /// When the session was last used, as a tick of the store's clock.
    last_use: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct User {
    pub(crate) name: String,
    /// The token `/app/logout` must be given to end the session.
    pub(crate) logout_token: Id,
}

pub(crate) struct Sessions {
    by_id: HashMap<Id, Session>,
    /// The same sessions ordered by last use, least recent first.
    by_use: BTreeMap<u64, Id>,
    clock: u64,
    capacity: usize,
}

impl Sessions {
    pub(crate) fn new(capacity: usize) -> Sessions {
        assert!(capacity > 0, "a session store must hold a session");
        Sessions {
            by_id: HashMap::new(),
            by_use: BTreeMap::new(),
            clock: 0,
            capacity,
        }
    }

    /// Starts an anonymous session bound to `csrf`. Returns how many
    /// sessions were evicted to make room for it (0 or 1).
    pub(crate) fn start(&mut self, id: Id, csrf: Id) -> u64 {
        self.end(&id);
        let mut evicted = 0;
        while self.by_id.len() >= self.capacity {
            let Some((_, oldest)) = self.by_use.pop_first() else {
                break;
            };
            self.by_id.remove(&oldest);
            evicted += 1;
        }
        let last_use = self.tick();
        self.by_use.insert(last_use, id);
        let session = Session {
            csrf,
            user: None,
            last_use,
        };
        self.by_id.insert(id, session);
        evicted
    }

    /// The session `id`, marked as used now.
    pub(crate) fn get_mut(&mut self, id: &Id) -> Option<&mut Session> {
        let now = self.tick();
        let session = self.by_id.get_mut(id)?;
        self.by_use.remove(&session.last_use);
        self.by_use.insert(now, *id);
        session.last_use = now;
        Some(session)
    }

    /// Forgets the session `id`, returning it if it was known.
    pub(crate) fn end(&mut self, id: &Id) -> Option<Session> {
        let session = self.by_id.remove(id)?;
        self.by_use.remove(&session.last_use);
        Some(session)
    }

    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<Id> {
        (0..n).map(|_| Id::random()).collect()
    }

    #[test]
    fn a_session_lives_until_it_ends() {
        let mut sessions = Sessions::new(10);
        let [id, csrf] = [Id::random(), Id::random()];
        assert_eq!(sessions.start(id, csrf), 0);
        let session = sessions.get_mut(&id).unwrap();
        assert_eq!((session.csrf, &session.user), (csrf, &None));
        let user = User {
            name: "alice".into(),
            logout_token: Id::random(),
        };
        session.user = Some(user.clone());
        assert_eq!(sessions.get_mut(&id).unwrap().user, Some(user));
        assert!(sessions.end(&id).is_some());
        assert!(sessions.get_mut(&id).is_none());
        assert!(sessions.end(&id).is_none());
        assert_eq!(sessions.by_id.len(), 0);
    }

    #[test]
    fn a_full_store_evicts_the_least_recently_used() {
        let mut sessions = Sessions::new(3);
        let ids = ids(5);
        for id in &ids[..3] {
            assert_eq!(sessions.start(*id, Id::random()), 0);
        }
        // Using the oldest makes the second one the least recently used.
        sessions.get_mut(&ids[0]).unwrap();
        assert_eq!(sessions.start(ids[3], Id::random()), 1);
        assert!(sessions.get_mut(&ids[1]).is_none());
        assert_eq!(sessions.start(ids[4], Id::random()), 1);
        assert!(sessions.get_mut(&ids[2]).is_none());
        for id in [ids[0], ids[3], ids[4]] {
            assert!(sessions.get_mut(&id).is_some());
        }
        assert_eq!(sessions.by_id.len(), 3);
    }

    #[test]
    fn ended_sessions_leave_nothing_behind() {
        let mut sessions = Sessions::new(2);
        for id in ids(1000) {
            sessions.start(id, Id::random());
            sessions.get_mut(&id).unwrap();
            sessions.end(&id);
        }
        assert_eq!((sessions.by_id.len(), sessions.by_use.len()), (0, 0));
        for id in ids(1000) {
            sessions.start(id, Id::random());
        }
        assert_eq!((sessions.by_id.len(), sessions.by_use.len()), (2, 2));
    }

    #[test]
    fn restarting_a_known_id_replaces_its_session() {
        let mut sessions = Sessions::new(2);
        let id = Id::random();
        sessions.start(id, Id::random());
        let csrf = Id::random();
        assert_eq!(sessions.start(id, csrf), 0);
        assert_eq!(sessions.by_id.len(), 1);
        assert_eq!(sessions.get_mut(&id).unwrap().csrf, csrf);
    }
}
