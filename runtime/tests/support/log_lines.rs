//! A `tracing` subscriber that keeps the events logged while it is the default, one line each
//! (`LEVEL field=value ...`): the tests of the webhook server's logs (runtime's unit tests and
//! envtest's conversion tests, each `#[path]`-including this file).

use std::sync::{Arc, Mutex};

/// The messages of the events logged on this thread while it is the default subscriber.
#[derive(Clone, Default)]
pub struct LogLines(Arc<Mutex<Vec<String>>>);

impl LogLines {
    /// Every line logged so far.
    pub fn all(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }

    /// The lines logged so far that contain `text`.
    pub fn containing(&self, text: &str) -> Vec<String> {
        let lines = self.0.lock().unwrap();
        lines.iter().filter(|l| l.contains(text)).cloned().collect()
    }
}

impl tracing::Subscriber for LogLines {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        struct Message<'a>(&'a mut String);
        impl tracing::field::Visit for Message<'_> {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                use std::fmt::Write;
                let _ = write!(self.0, " {}={value:?}", field.name());
            }
        }
        let mut line = event.metadata().level().to_string();
        event.record(&mut Message(&mut line));
        self.0.lock().unwrap().push(line);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}
