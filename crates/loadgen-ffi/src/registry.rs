//! Handles: numbers the caller holds, each naming an object kept here. A
//! handle that was never given, or was destroyed, names nothing, so using
//! it is an error rather than a read of freed memory. Numbers are never
//! reused.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// An opaque handle; 0 is never a valid one (the failure value).
pub type LoadgenHandle = u64;

/// Every live handle of one kind. A B-tree rather than a hash map: its
/// nodes are held by pointers to their starts, so a memory checker sees
/// the registry as reachable, where a hash table's pointer into the middle
/// of its allocation reads as "possibly lost".
pub struct Registry<T> {
    objects: Mutex<Option<BTreeMap<LoadgenHandle, Arc<T>>>>,
    what: &'static str,
}

/// One counter for every kind, so a handle of one kind never names an
/// object of another.
static NEXT: AtomicU64 = AtomicU64::new(1);

impl<T> Registry<T> {
    pub const fn new(what: &'static str) -> Registry<T> {
        Registry {
            objects: Mutex::new(None),
            what,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<BTreeMap<LoadgenHandle, Arc<T>>>> {
        // A panic never happens while the lock is held; if one did, the map is still whole.
        self.objects.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn insert(&self, object: T) -> LoadgenHandle {
        let handle = NEXT.fetch_add(1, Ordering::Relaxed);
        self.lock()
            .get_or_insert_with(BTreeMap::new)
            .insert(handle, Arc::new(object));
        handle
    }

    /// The object `handle` names, shared: it lives on while a call uses it,
    /// even when another thread destroys the handle meanwhile.
    pub fn get(&self, handle: LoadgenHandle) -> Result<Arc<T>, String> {
        self.lock()
            .as_ref()
            .and_then(|map| map.get(&handle).cloned())
            .ok_or_else(|| self.unknown(handle))
    }

    pub fn remove(&self, handle: LoadgenHandle) -> Result<Arc<T>, String> {
        self.lock()
            .as_mut()
            .and_then(|map| map.remove(&handle))
            .ok_or_else(|| self.unknown(handle))
    }

    fn unknown(&self, handle: LoadgenHandle) -> String {
        if handle == 0 {
            format!("{}: the handle is 0 (NULL)", self.what)
        } else {
            format!(
                "{}: no such handle ({handle}): never created, or destroyed",
                self.what
            )
        }
    }
}
