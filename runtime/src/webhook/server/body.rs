//! Reading a request body into one buffer, under the body limit and the request deadline.
//!
//! Collecting hyper's frames as they are (`BodyExt::collect`) keeps every frame's buffer: a
//! body sent one byte per TLS record held about 1.9 KB per byte, so the body limit bounded
//! the bytes, not the memory. Each frame is copied into a buffer sized by `Content-Length`
//! (at most the limit) and dropped.

use http_body_util::BodyExt;
use hyper::body::{Body, Buf};
use tokio::time::Instant;

/// Why a body was not read.
#[derive(Debug)]
pub(crate) enum BodyError {
    /// More bytes than the limit, declared or sent.
    TooLarge,
    /// The body did not arrive before the request deadline.
    TimedOut,
    /// The connection failed or the framing was wrong.
    Read(Box<dyn std::error::Error + Send + Sync>),
}

/// The whole body, if it fits in `limit` bytes and arrives before `deadline`.
pub(crate) async fn read_body<B>(
    mut body: B,
    content_length: Option<u64>,
    limit: usize,
    deadline: Instant,
) -> Result<Vec<u8>, BodyError>
where
    B: Body + Unpin,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let mut buffer = match content_length {
        Some(length) if length > limit as u64 => return Err(BodyError::TooLarge),
        Some(length) => Vec::with_capacity(length as usize),
        None => Vec::new(),
    };
    loop {
        let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) => return Err(BodyError::TimedOut),
            Ok(None) => return Ok(buffer),
            Ok(Some(Err(e))) => return Err(BodyError::Read(Box::new(e))),
            Ok(Some(Ok(frame))) => frame,
        };
        let Ok(mut data) = frame.into_data() else {
            continue; // trailers
        };
        if buffer.len() + data.remaining() > limit {
            return Err(BodyError::TooLarge);
        }
        // A chunked body grows the buffer, to twice the limit at most.
        while data.has_remaining() {
            let chunk = data.chunk();
            buffer.extend_from_slice(chunk);
            let n = chunk.len();
            data.advance(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use hyper::body::Frame;
    use std::collections::VecDeque;
    use std::convert::Infallible;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use std::time::Duration;

    /// A body of the given frames, then (if `stall`) one that never comes.
    struct Frames {
        parts: VecDeque<&'static [u8]>,
        stall: bool,
    }

    impl Body for Frames {
        type Data = Bytes;
        type Error = Infallible;
        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            match self.parts.pop_front() {
                Some(part) => Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(part))))),
                None if self.stall => Poll::Pending,
                None => Poll::Ready(None),
            }
        }
    }

    fn frames(parts: Vec<&'static [u8]>) -> Frames {
        Frames {
            parts: parts.into(),
            stall: false,
        }
    }

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    #[tokio::test]
    async fn frames_are_copied_into_one_buffer_of_the_declared_length() {
        let body = read_body(frames(vec![b"ab", b"c", b"de"]), Some(5), 8, later())
            .await
            .unwrap();
        assert_eq!(body, b"abcde");
        assert_eq!(body.capacity(), 5, "sized by Content-Length, never grown");
    }

    #[tokio::test]
    async fn a_body_over_the_limit_is_refused_declared_or_sent() {
        assert!(matches!(
            read_body(frames(vec![]), Some(9), 8, later()).await,
            Err(BodyError::TooLarge)
        ));
        assert!(matches!(
            read_body(frames(vec![b"12345", b"6789"]), None, 8, later()).await,
            Err(BodyError::TooLarge)
        ));
        assert_eq!(
            read_body(frames(vec![b"1234", b"5678"]), None, 8, later())
                .await
                .unwrap(),
            b"12345678"
        );
    }

    #[tokio::test]
    async fn a_body_that_does_not_arrive_by_the_deadline_times_out() {
        let stalled = Frames {
            parts: vec![&b"a"[..]].into(),
            stall: true,
        };
        let began = std::time::Instant::now();
        let deadline = Instant::now() + Duration::from_millis(50);
        assert!(matches!(
            read_body(stalled, Some(3), 8, deadline).await,
            Err(BodyError::TimedOut)
        ));
        assert!(began.elapsed() < Duration::from_secs(2));
    }
}
