//! The scenarios of slow clients and of large reviews one after another: `slow-bodies`,
//! `cap-probes` and `sequential` (see `main.rs`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;

use super::{Error, Server, VALIDATE, head, percentile, read_status, review};

pub(crate) async fn slow_bodies(connections: u64) -> Result<(), Error> {
    let server = Arc::new(Server::start(Some(1024))?);
    let began = Instant::now();
    let mut slow = Vec::new();
    for _ in 0..connections {
        let server = server.clone();
        slow.push(tokio::spawn(async move {
            let conn = server.connect().await?;
            let (mut reader, mut writer) = tokio::io::split(conn.stream);
            writer.write_all(head(VALIDATE, 10_000).as_bytes()).await?;
            writer.flush().await?;
            let trickle = tokio::spawn(async move {
                while writer.write_all(b" ").await.is_ok() && writer.flush().await.is_ok() {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            });
            let mut buffer = Vec::new();
            let status = read_status(&mut reader, &mut buffer).await;
            trickle.abort();
            Ok::<_, std::io::Error>((status.unwrap_or(0), began.elapsed()))
        }));
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut served = 0;
    for _ in 0..6 {
        let attempt = async {
            let mut conn = server.connect().await?;
            conn.post(VALIDATE, &review(16)).await
        };
        if let Ok(Ok(200)) = tokio::time::timeout(Duration::from_secs(5), attempt).await {
            served += 1;
        }
    }
    let during = began.elapsed();
    let mut statuses = std::collections::BTreeMap::new();
    let mut last = Duration::ZERO;
    for task in slow {
        match task.await? {
            Ok((status, at)) => {
                *statuses.entry(status).or_insert(0) += 1;
                last = last.max(at);
            }
            Err(_) => *statuses.entry(0).or_insert(0) += 1,
        }
    }
    println!(
        "slow-bodies {connections} (server soft open-file limit 1024 before start): {served} of 6 ordinary reviews served at {:.1} s; slow ones answered {statuses:?}, the last at {:.1} s; server peak RSS {:.1} MiB",
        during.as_secs_f64(),
        last.as_secs_f64(),
        server.memory("VmHWM"),
    );
    Ok(())
}

pub(crate) async fn cap_probes(slow: u64, probes: u64) -> Result<(), Error> {
    let server = Arc::new(Server::start(None)?);
    let connected = Arc::new(tokio::sync::Semaphore::new(0));
    let handshakes = Arc::new(tokio::sync::Semaphore::new(64));
    let mut slow_tasks = Vec::new();
    for _ in 0..slow {
        let (server, connected, handshakes) =
            (server.clone(), connected.clone(), handshakes.clone());
        slow_tasks.push(tokio::spawn(async move {
            let permit = handshakes.acquire().await;
            let conn = server.connect().await;
            drop(permit);
            let conn = conn?;
            let (mut reader, mut writer) = tokio::io::split(conn.stream);
            writer.write_all(head(VALIDATE, 10_000).as_bytes()).await?;
            writer.flush().await?;
            connected.add_permits(1);
            let trickle = tokio::spawn(async move {
                while writer.write_all(b" ").await.is_ok() && writer.flush().await.is_ok() {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            });
            let mut buffer = Vec::new();
            let status = read_status(&mut reader, &mut buffer).await;
            trickle.abort();
            Ok::<_, std::io::Error>(status.ok())
        }));
    }
    // Those past the cap may not be let in: probe once all are in, or after 5 s.
    let all_in = connected.acquire_many(slow as u32);
    let all_in = tokio::time::timeout(Duration::from_secs(5), all_in)
        .await
        .is_ok();
    let slow_in = if all_in {
        slow as usize
    } else {
        connected.available_permits()
    };
    let began = Instant::now();
    let mut latencies = Vec::new();
    let mut failed = Vec::new();
    for i in 0..probes {
        let sent = Instant::now();
        let attempt = async {
            let mut conn = server.connect().await?;
            conn.post(VALIDATE, &review(16)).await
        };
        match tokio::time::timeout(Duration::from_secs(15), attempt).await {
            Ok(Ok(200)) => latencies.push(sent.elapsed()),
            other => failed.push(format!(
                "probe {i}: {other:?} at {:.1} s",
                sent.elapsed().as_secs_f64()
            )),
        }
    }
    let probing = began.elapsed();
    let closed = slow_tasks.iter().filter(|t| t.is_finished()).count();
    let mut answered = 0;
    for task in slow_tasks {
        if task.is_finished() {
            if let Ok(Ok(Some(_))) = task.await {
                answered += 1;
            }
        } else {
            task.abort();
        }
    }
    latencies.sort();
    println!(
        "cap-probes {slow} slow bodies ({slow_in} let in), {probes} probes in {:.2} s: {} answered 200 (p50 {:.1} ms, max {:.1} ms), failed {failed:?}; {closed} slow ones closed by the server meanwhile ({answered} with an answer); server peak RSS {:.1} MiB",
        probing.as_secs_f64(),
        latencies.len(),
        percentile(&latencies, 0.5),
        latencies.last().map_or(f64::NAN, |d| d.as_secs_f64() * 1e3),
        server.memory("VmHWM"),
    );
    Ok(())
}

pub(crate) async fn sequential(count: u64, bytes: u64) -> Result<(), Error> {
    let server = Server::start(None)?;
    let mut conn = server.connect().await?;
    conn.post(VALIDATE, &review(16)).await?;
    let before = server.memory("VmRSS");
    let body = review(bytes.saturating_sub(700) as usize);
    let mut after = Vec::new();
    let mut statuses = std::collections::BTreeMap::new();
    for _ in 0..count {
        *statuses
            .entry(conn.post(VALIDATE, &body).await?)
            .or_insert(0) += 1;
        // The trim runs on a blocking thread once the request is done.
        tokio::time::sleep(Duration::from_millis(500)).await;
        after.push(format!("{:.1}", server.memory("VmRSS")));
    }
    drop(conn);
    tokio::time::sleep(Duration::from_secs(1)).await;
    println!(
        "sequential {count} x {} bytes on one connection: statuses {statuses:?}; server RSS before {before:.1} MiB, 0.5 s after each [{}] MiB, peak {:.1} MiB, {:.1} MiB 1 s after the connection closed",
        body.len(),
        after.join(", "),
        server.memory("VmHWM"),
        server.memory("VmRSS"),
    );
    Ok(())
}
