//! The published generation, held open and swapped atomically when a newer one appears.
//!
//! Every query takes an `Arc<Generation>` snapshot first and finishes on it, so a swap never
//! changes an answer half-way. The swap check is one small read of `CURRENT` per request: a
//! newer id opens and validates the new generation; if that fails, the error goes to stderr and
//! the previous generation keeps serving.

use std::sync::{Arc, Mutex};

use kivgraph_format::{FormatError, Generation, IndexDir};

#[derive(Debug)]
pub struct Store {
    index: IndexDir,
    current: Mutex<Option<Arc<Generation>>>,
    /// The id that last failed to open, so a broken generation is reported once, not per request.
    failed: Mutex<Option<u64>>,
}

impl Store {
    /// Opens the index; a missing or unreadable generation is not an error here, the server
    /// starts empty and keeps checking.
    pub fn open(index: IndexDir) -> Store {
        let store = Store {
            index,
            current: Mutex::new(None),
            failed: Mutex::new(None),
        };
        let _ = store.refresh();
        store
    }

    pub fn index(&self) -> &IndexDir {
        &self.index
    }

    /// Re-reads `CURRENT` and swaps to a newer generation if there is one. Returns whether the
    /// served generation changed.
    pub fn refresh(&self) -> Result<bool, FormatError> {
        let Some(id) = self.index.current()? else {
            return Ok(false);
        };
        let loaded = self.current.lock().unwrap().as_ref().map(|g| g.id);
        if loaded.is_some_and(|l| l >= id) || *self.failed.lock().unwrap() == Some(id) {
            return Ok(false);
        }
        let generation = match Generation::open_dir(&self.index.generation_dir(id)) {
            Ok(g) => g,
            Err(e) => {
                *self.failed.lock().unwrap() = Some(id);
                return Err(e);
            }
        };
        *self.current.lock().unwrap() = Some(Arc::new(generation));
        Ok(true)
    }

    /// The generation to answer from, after a freshness check; `None` when nothing is published.
    pub fn snapshot(&self) -> Option<Arc<Generation>> {
        if let Err(e) = self.refresh() {
            eprintln!(
                "{{\"level\":\"warn\",\"msg\":\"newer generation not loaded, previous one keeps serving\",\"error\":{:?}}}",
                e.to_string()
            );
        }
        self.current.lock().unwrap().clone()
    }
}
