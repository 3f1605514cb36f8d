//! The bad-input campaign (ARCHITECTURE.md, "Security"): over ten thousand generated requests through the public
//! gateway against live games of all five kinds, from strangers, from forged tokens and from
//! the seated players themselves. Whatever arrives:
//! - no answer is INTERNAL, UNKNOWN or DATA_LOSS, and none is UNAVAILABLE or CANCELLED: every
//!   service and Redis are up and the client cancels nothing, so those would be a call that
//!   died (a panicking handler resets its stream, which the client sees as CANCELLED: checked
//!   by planting a panic in a gateway handler);
//! - the games' Redis keys are byte for byte what they were before: nothing the campaign sent
//!   changed a game;
//! - the system still serves afterwards: every game takes its next legal move.
//!
//! Three generators, each seeded (`LUDUS_CAMPAIGN_SEED` replays a run; the seed is printed):
//! - **bodies**: every `Gateway` method, with request bodies built from the gateway's own
//!   descriptors (each field with its wire type or a wrong one; strings that are empty,
//!   overlong, over the 64 KiB body limit, invalid UTF-8, control, bidi, zero-width and
//!   combining characters, the live games' real ids; extreme numbers), then truncated,
//!   corrupted or padded, or plain random bytes; sent with no token, a malformed one or a
//!   stranger's (someone seated at none of the games);
//! - **tokens**: a legal move of a seated player, carried by tokens that must all be refused:
//!   missing, malformed, `alg: none`, signed with another secret, expired, with a tampered
//!   subject, oversized;
//! - **play**: the seated players themselves, with valid tokens: out of turn, stale and
//!   future seqs, a committed action id reused for another action, garbage notation in each
//!   game's alphabet, structured actions of another game, ids over the limits, moves in a
//!   finished game, a draw answered that nobody offered.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bytes::Bytes;
use futures::StreamExt as _;
use ludus_proto::pb;
use ludus_rules::{RandomSource, SplitMix64};
use ludus_tests::{Ludus, Player, caro_settings, connect_from, raw};
use prost::Message as _;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FileDescriptorSet};
use tonic::transport::Channel;
use tonic::{Code, Status};

/// Requests per generator; the three together are over the 10,000.
const BODY_REQUESTS: usize = 7_000;
const TOKEN_REQUESTS: usize = 1_200;
const PLAY_REQUESTS_PER_GAME: usize = 400;
/// Requests in flight at once.
const IN_FLIGHT: usize = 32;
/// How long a stream the campaign opened is read for its first answer before it is dropped
/// (a stream that stays open without answering is a live stream, not a fault).
const STREAM_LOOK: Duration = Duration::from_millis(200);
/// The e2e system's token secret (tests/src/lib.rs).
const TEST_SECRET: &[u8] = b"end-to-end tests secret, 32+ bytes long";
/// Source addresses the forged tokens come from: the gateway limits refused tokens per peer
/// address, and the campaign wants most of them judged, not cut off.
const FORGER_ADDRESSES: u8 = 24;

/// The campaign's random source: seeded, so a failing run can be replayed.
struct Gen(SplitMix64);

impl Gen {
    fn below(&mut self, n: usize) -> usize {
        self.0.below(u32::try_from(n.max(1)).unwrap_or(u32::MAX)) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn u64(&mut self) -> u64 {
        (u64::from(self.0.below(u32::MAX)) << 32) | u64::from(self.0.below(u32::MAX))
    }
    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.below(256) as u8).collect()
    }
    fn ascii(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| (b' ' + self.below(95) as u8) as char)
            .collect()
    }
}

/// One live game the campaign aims at, and its two seated players.
struct Target {
    kind: &'static str,
    game_id: String,
    players: [Player; 2],
}

/// What the campaign saw: answers per status code, and the calls that broke the contract.
#[derive(Default)]
struct Tally {
    /// The generator now running (`bodies`, `tokens`, `play`): answers are counted per one.
    phase: &'static str,
    codes: BTreeMap<(&'static str, String), usize>,
    faults: Vec<String>,
    requests: usize,
}

impl Tally {
    /// Records one answer; `what` says which request it was, for the failure message.
    fn answer(&mut self, what: &str, answer: Result<(), Status>) {
        self.requests += 1;
        let code = match &answer {
            Ok(()) => "OK".to_owned(),
            Err(status) => format!("{:?}", status.code()),
        };
        *self.codes.entry((self.phase, code)).or_default() += 1;
        if let Err(status) = answer
            && matches!(
                status.code(),
                Code::Internal
                    | Code::Unknown
                    | Code::DataLoss
                    | Code::Unavailable
                    | Code::Cancelled
            )
            && self.faults.len() < 20
        {
            self.faults.push(format!("{what}: {status:?}"));
        }
    }

    /// Records a contract breach that is not a status (e.g. garbage accepted).
    fn fault(&mut self, what: String) {
        if self.faults.len() < 20 {
            self.faults.push(what);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_bad_requests_change_no_game_and_never_answer_internal() {
    let seed = std::env::var("LUDUS_CAMPAIGN_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
    println!("bad-input campaign seed: LUDUS_CAMPAIGN_SEED={seed}");
    let mut rng = Gen(SplitMix64(seed));
    let ludus = Ludus::start().await;
    let targets = targets(&ludus).await;
    let finished = finished_game(&ludus).await;
    let strangers = [ludus.player("stranger").await, ludus.player("nosy").await];
    let redis_url = ludus.redis_url().expect("the campaign runs on Redis");
    let before = stored(&redis_url, &targets, &finished).await;

    let mut tally = Tally::default();
    let methods = gateway_methods();
    let mut ids: Vec<String> = targets.iter().map(|t| t.game_id.clone()).collect();
    ids.push(finished.0.clone());
    ids.extend(strangers.iter().map(|s| s.id.clone()));
    ids.extend(
        targets
            .iter()
            .flat_map(|t| t.players.iter().map(|p| p.id.clone())),
    );

    // Bodies: every method, generated bodies, strangers' or no tokens, from many addresses
    // (calls with a refused token are limited per address).
    tally.phase = "bodies";
    let channels = forger_channels(ludus.gateway, 3).await;
    let tokens: Vec<Option<String>> = vec![
        None,
        Some(format!("Bearer {}", strangers[0].token)),
        Some(format!("Bearer {}", strangers[1].token)),
        Some("Bearer".to_owned()),
        Some(format!("Bearer {}", rng.ascii(40))),
    ];
    let calls: Vec<(String, bool, Bytes, Option<String>)> = (0..BODY_REQUESTS)
        .map(|_| {
            let method = rng.pick(&methods).clone();
            let body = if rng.chance(10) {
                let len = rng.below(64);
                rng.bytes(len)
            } else {
                let body = method.body(&mut rng, &ids);
                mutate(&mut rng, body)
            };
            let token = rng.pick(&tokens).clone();
            (method.path, method.streaming, Bytes::from(body), token)
        })
        .collect();
    let answers = futures::stream::iter(calls)
        .enumerate()
        .map(|(i, (path, streaming, body, token))| {
            let channel = channels[i % channels.len()].clone();
            async move {
                let what = format!("{path} body {}", hex(&body));
                (
                    what,
                    call(channel, &path, streaming, body, token.as_deref()).await,
                )
            }
        })
        .buffer_unordered(IN_FLIGHT)
        .collect::<Vec<_>>()
        .await;
    for (what, answer) in answers {
        tally.answer(&what, answer);
    }

    // Tokens: a legal move, carried by tokens that must all be refused.
    tally.phase = "tokens";
    let forgers = forger_channels(ludus.gateway, 4).await;
    let mut forged = Vec::new();
    for i in 0..TOKEN_REQUESTS {
        let target = rng.pick(&targets);
        let victim = &target.players[rng.below(2)];
        let (token, kind) = forged_token(&mut rng, victim);
        let request = pb::GetGameRequest {
            game_id: target.game_id.clone(),
        };
        let channel = forgers[i % forgers.len()].clone();
        forged.push((
            format!("{kind} token for {}", victim.id),
            channel,
            request.encode_to_vec(),
            token,
        ));
    }
    // The most dangerous call to forge is a move: one legal action per game, at its seq.
    for target in &targets {
        let (mover, seq, action) = next_legal(target).await;
        for _ in 0..20 {
            let (token, kind) = forged_token(&mut rng, &target.players[mover]);
            let request = pb::SubmitActionRequest {
                game_id: target.game_id.clone(),
                expected_seq: seq,
                action_id: format!("forged-{}", rng.u64()),
                action: Some(action.clone()),
            };
            let channel = forgers[rng.below(forgers.len())].clone();
            forged.push((
                format!("{kind} token moving in {}", target.kind),
                channel,
                request.encode_to_vec(),
                token,
            ));
        }
    }
    let answers = futures::stream::iter(forged)
        .map(|(what, channel, body, token)| async move {
            let path = if what.contains("moving") {
                "/ludus.v1.Gateway/SubmitAction"
            } else {
                "/ludus.v1.Gateway/GetGame"
            };
            let answer = raw::unary(channel, path, Bytes::from(body), Some(&token)).await;
            (what, answer)
        })
        .buffer_unordered(IN_FLIGHT)
        .collect::<Vec<_>>()
        .await;
    for (what, answer) in answers {
        match answer {
            Ok(_) => tally.fault(format!("{what}: accepted")),
            Err(status) => {
                if !matches!(
                    status.code(),
                    Code::Unauthenticated | Code::ResourceExhausted
                ) {
                    tally.fault(format!("{what}: {status:?}"));
                }
                tally.answer(&what, Err(status));
            }
        }
    }

    // Play: the seated players themselves.
    tally.phase = "play";
    let mut targets = targets;
    for target in &mut targets {
        play_attacks(&mut rng, target, &strangers[0].id, &mut tally).await;
    }
    finished_attacks(&mut rng, &finished, &mut tally).await;

    let after = stored(&redis_url, &targets, &finished).await;
    println!(
        "{} requests; answers by generator and status:",
        tally.requests
    );
    for ((phase, code), count) in &tally.codes {
        println!("  {phase:>6} {code:<18} {count:>5}");
    }
    assert!(
        tally.requests >= 10_000,
        "the campaign sent {} requests",
        tally.requests
    );
    assert!(tally.faults.is_empty(), "seed {seed}: {:#?}", tally.faults);
    for ((key, was), (_, is)) in before.iter().zip(&after) {
        assert_eq!(was, is, "seed {seed}: {key} changed");
    }
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "seed {seed}: the games' keys"
    );

    // Still serving: every game takes its next legal move.
    for target in &mut targets {
        let (seq, event) = play_legal(target).await;
        assert_eq!(event.seq, seq + 1, "{}", target.kind);
    }
    ludus.shutdown().await;
}

/// One live game of each kind, created for two guests, each of whom has moved (so each has a
/// committed action id to reuse).
async fn targets(ludus: &Ludus) -> Vec<Target> {
    let kinds: [(&'static str, pb::game_settings::Options); 5] = [
        (
            "caro",
            pb::game_settings::Options::Caro(pb::CaroOptions::default()),
        ),
        (
            "mancala",
            pb::game_settings::Options::Mancala(pb::MancalaOptions {
                rule_set: pb::MancalaRuleSet::Kalah as i32,
                first_player: pb::MancalaFirstPlayer::Unspecified as i32,
            }),
        ),
        (
            "quoridor",
            pb::game_settings::Options::Quoridor(pb::QuoridorOptions {
                players: 2,
                ..Default::default()
            }),
        ),
        (
            "backgammon",
            pb::game_settings::Options::Backgammon(pb::BackgammonOptions::default()),
        ),
        (
            "junqi",
            pb::game_settings::Options::Junqi(pb::JunqiOptions {}),
        ),
    ];
    let mut targets = Vec::new();
    for (kind, options) in kinds {
        let players = ludus.players([kind, "other"]).await;
        let settings = pb::GameSettings {
            options: Some(options),
            turn_time_ms: 0,
        };
        let game = ludus
            .create_game("", settings, &[&players[0], &players[1]])
            .await;
        let mut target = Target {
            kind,
            game_id: game.game_id,
            players,
        };
        // Until each player has committed an action (a Kalah player whose last seed lands in
        // their store moves again, M5): each then has an action id `<player>-1` to reuse.
        let mut moved = [false; 2];
        while moved != [true; 2] {
            let (mover, _, _) = next_legal(&target).await;
            play_legal(&mut target).await;
            moved[mover] = true;
        }
        targets.push(target);
    }
    targets
}

/// Plays the next legal action in `target` with a fresh action id: the seq it was played at
/// and its event.
async fn play_legal(target: &mut Target) -> (u64, pb::GameEvent) {
    let (mover, seq, action) = next_legal(target).await;
    let player = &mut target.players[mover];
    let action_id = player.next_action_id();
    let response = player
        .client
        .submit_action(pb::SubmitActionRequest {
            game_id: target.game_id.clone(),
            expected_seq: seq,
            action_id,
            action: Some(action),
        })
        .await
        .unwrap_or_else(|e| panic!("{}: a legal move: {e:?}", target.kind))
        .into_inner();
    (seq, response.event.expect("the move's event"))
}

/// A Caro game that one of its players resigned: (game id, its two players).
async fn finished_game(ludus: &Ludus) -> (String, [Player; 2]) {
    let mut players = ludus.players(["winner", "resigner"]).await;
    let game = ludus
        .create_game("", caro_settings(), &[&players[0], &players[1]])
        .await;
    players[1].resign(&game.game_id).await.expect("resign");
    (game.game_id, players)
}

/// Who moves next in `target`, at which seq, and one legal action of theirs.
async fn next_legal(target: &Target) -> (usize, u64, pb::Action) {
    for (seat, player) in target.players.iter().enumerate() {
        let mut client = player.client.clone();
        let snapshot = client
            .get_game(pb::GetGameRequest {
                game_id: target.game_id.clone(),
            })
            .await
            .expect("get game")
            .into_inner()
            .game
            .expect("snapshot");
        if let Some(legal) = snapshot.legal_actions.first() {
            return (
                seat,
                snapshot.seq,
                legal.action.clone().expect("a legal action's action"),
            );
        }
    }
    panic!("{}: nobody has a legal action", target.kind)
}

/// Every stored key of the target games and the finished game, as `DUMP` serialises it.
async fn stored(
    redis_url: &str,
    targets: &[Target],
    finished: &(String, [Player; 2]),
) -> BTreeMap<String, Vec<u8>> {
    let client = redis::Client::open(redis_url).expect("redis url");
    let mut redis = client
        .get_multiplexed_async_connection()
        .await
        .expect("connect to redis");
    let mut games: Vec<&str> = targets.iter().map(|t| t.game_id.as_str()).collect();
    games.push(&finished.0);
    let mut dumps = BTreeMap::new();
    for game in games {
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg(format!("ludus:game:{{{game}}}:*"))
            .query_async(&mut redis)
            .await
            .expect("KEYS");
        assert!(!keys.is_empty(), "game {game} is stored");
        for key in keys {
            let dump: Vec<u8> = redis::cmd("DUMP")
                .arg(&key)
                .query_async(&mut redis)
                .await
                .expect("DUMP");
            dumps.insert(key, dump);
        }
    }
    dumps
}

/// One gateway method from the descriptors.
#[derive(Clone)]
struct Method {
    path: String,
    streaming: bool,
    input: String,
    messages: std::sync::Arc<BTreeMap<String, DescriptorProto>>,
}

/// Every method of `ludus.v1.Gateway`, from the descriptors the gateway serves by reflection.
fn gateway_methods() -> Vec<Method> {
    let set = FileDescriptorSet::decode(ludus_proto::FILE_DESCRIPTOR_SET).expect("descriptors");
    let mut messages = BTreeMap::new();
    fn collect(
        prefix: &str,
        message: &DescriptorProto,
        into: &mut BTreeMap<String, DescriptorProto>,
    ) {
        let name = format!("{prefix}.{}", message.name());
        for nested in &message.nested_type {
            collect(&name, nested, into);
        }
        into.insert(name, message.clone());
    }
    for file in &set.file {
        for message in &file.message_type {
            collect(&format!(".{}", file.package()), message, &mut messages);
        }
    }
    let messages = std::sync::Arc::new(messages);
    let methods: Vec<Method> = set
        .file
        .iter()
        .filter(|f| f.package() == "ludus.v1")
        .flat_map(|f| f.service.iter())
        .filter(|s| s.name() == "Gateway")
        .flat_map(|s| s.method.iter())
        .map(|m| Method {
            path: format!("/ludus.v1.Gateway/{}", m.name()),
            streaming: m.server_streaming(),
            input: m.input_type().to_owned(),
            messages: messages.clone(),
        })
        .collect();
    assert!(
        methods.len() > 30,
        "the gateway's methods: {}",
        methods.len()
    );
    methods
}

impl Method {
    /// A request body for this method: each field with its wire type, or now and then a
    /// wrong one, and values chosen to hurt.
    fn body(&self, rng: &mut Gen, ids: &[String]) -> Vec<u8> {
        let mut out = Vec::new();
        encode_message(rng, &self.messages, &self.input, ids, 0, &mut out);
        out
    }
}

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn key(field: i32, wire: u64, out: &mut Vec<u8>) {
    varint((u64::from(field.unsigned_abs()) << 3) | wire, out);
}

fn length_delimited(field: i32, bytes: &[u8], out: &mut Vec<u8>) {
    key(field, 2, out);
    varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}

fn encode_message(
    rng: &mut Gen,
    messages: &BTreeMap<String, DescriptorProto>,
    name: &str,
    ids: &[String],
    depth: usize,
    out: &mut Vec<u8>,
) {
    let Some(message) = messages.get(name) else {
        return;
    };
    for field in &message.field {
        if !rng.chance(70) {
            continue;
        }
        let repeats = if field.label() == Label::Repeated {
            rng.below(4)
        } else {
            1
        };
        for _ in 0..repeats {
            let number = field.number();
            if rng.chance(3) {
                // The wrong wire type for the field.
                key(number, [0, 1, 2, 5][rng.below(4)], out);
                let len = rng.below(9);
                out.extend(rng.bytes(len));
                continue;
            }
            match field.r#type() {
                Type::String => length_delimited(number, &nasty_string(rng, ids), out),
                Type::Bytes => {
                    let len = rng.below(100);
                    length_delimited(number, &rng.bytes(len), out);
                }
                Type::Message | Type::Group => {
                    let mut inner = Vec::new();
                    if depth < 4 {
                        encode_message(
                            rng,
                            messages,
                            field.type_name(),
                            ids,
                            depth + 1,
                            &mut inner,
                        );
                    }
                    length_delimited(number, &inner, out);
                }
                Type::Double | Type::Fixed64 | Type::Sfixed64 => {
                    key(number, 1, out);
                    out.extend(nasty_number(rng).to_le_bytes());
                }
                Type::Float | Type::Fixed32 | Type::Sfixed32 => {
                    key(number, 5, out);
                    out.extend((nasty_number(rng) as u32).to_le_bytes());
                }
                _ => {
                    key(number, 0, out);
                    varint(nasty_number(rng), out);
                }
            }
        }
    }
}

/// Numbers that hurt: zero, one, the extremes of each width, negative numbers as their
/// ten-byte varints, and arbitrary ones.
fn nasty_number(rng: &mut Gen) -> u64 {
    match rng.below(9) {
        0 => 0,
        1 => 1,
        2 => u64::MAX,
        3 => u64::from(u32::MAX),
        4 => i64::MIN as u64,
        5 => (-1i64) as u64,
        6 => 1 << 31,
        7 => rng.below(1000) as u64,
        _ => rng.u64(),
    }
}

/// Strings that hurt: empty, overlong, over the body limit, invalid UTF-8, control and
/// invisible characters, notation-shaped junk, and the live games' and players' real ids.
fn nasty_string(rng: &mut Gen, ids: &[String]) -> Vec<u8> {
    match rng.below(16) {
        0 => Vec::new(),
        1 => "x".repeat(65).into_bytes(),
        2 => "y".repeat(2_000).into_bytes(),
        3 => "z".repeat(70_000).into_bytes(),
        4 => vec![0xff, 0xfe, b'a'],
        5 => vec![b'a', 0xc3],
        6 => vec![0xed, 0xa0, 0x80],
        7 => "a\u{0}b\u{7}\r\n".as_bytes().to_vec(),
        8 => "\u{202e}evil\u{200b}\u{feff}".as_bytes().to_vec(),
        9 => "e\u{301}\u{301}\u{301}\u{301}\u{301}".as_bytes().to_vec(),
        10 => rng
            .pick(&[
                "Z99",
                "A0",
                "P16",
                "j10",
                "a1-a1",
                "bar/26",
                "25/30 0/-1",
                "e0v",
                "e9z",
                "0",
                "99",
                "-1",
                "flip z9",
                "k3-c3",
                "🙂",
                "NaN",
                "roll roll",
            ])
            .as_bytes()
            .to_vec(),
        11..=13 if !ids.is_empty() => rng.pick(ids).clone().into_bytes(),
        14 => {
            let len = 1 + rng.below(40);
            rng.ascii(len).into_bytes()
        }
        _ => {
            let len = 1 + rng.below(40);
            rng.bytes(len)
        }
    }
}

/// The generated body, now and then truncated, with a byte changed, or with junk after it.
fn mutate(rng: &mut Gen, mut body: Vec<u8>) -> Vec<u8> {
    match rng.below(10) {
        0 if !body.is_empty() => {
            let keep = rng.below(body.len());
            body.truncate(keep);
        }
        1 if !body.is_empty() => {
            let at = rng.below(body.len());
            body[at] ^= 1 << rng.below(8);
        }
        2 => {
            let len = 1 + rng.below(16);
            body.extend(rng.bytes(len));
        }
        _ => {}
    }
    body
}

/// Calls `path` with `body`; for a stream, reads its first answer for [`STREAM_LOOK`].
async fn call(
    channel: Channel,
    path: &str,
    streaming: bool,
    body: Bytes,
    authorization: Option<&str>,
) -> Result<(), Status> {
    if !streaming {
        return raw::unary(channel, path, body, authorization)
            .await
            .map(drop);
    }
    let mut stream = raw::server_streaming(channel, path, body, authorization).await?;
    match tokio::time::timeout(STREAM_LOOK, stream.message()).await {
        Ok(Ok(_)) | Err(_) => Ok(()),
        Ok(Err(status)) => Err(status),
    }
}

fn hex(bytes: &[u8]) -> String {
    let shown: String = bytes.iter().take(48).map(|b| format!("{b:02x}")).collect();
    if bytes.len() > 48 {
        format!("{shown}… ({} bytes)", bytes.len())
    } else {
        shown
    }
}

/// Channels to the gateway from many loopback source addresses `127.0.<net>.x` (the gateway
/// sees them as different peers).
async fn forger_channels(gateway: SocketAddr, net: u8) -> Vec<Channel> {
    let mut channels = Vec::new();
    for i in 0..FORGER_ADDRESSES {
        let source = IpAddr::V4(Ipv4Addr::new(127, 0, net, 1 + i));
        channels.push(connect_from(gateway, source).await);
    }
    channels
}

#[derive(serde::Serialize)]
struct Claims<'a> {
    sub: &'a str,
    name: &'a str,
    exp: u64,
    iat: u64,
    kind: &'a str,
}

/// A token for `victim` that the gateway must refuse, and what kind of forgery it is.
fn forged_token(rng: &mut Gen, victim: &Player) -> (String, &'static str) {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let claims = |exp| Claims {
        sub: &victim.id,
        name: "Victim",
        exp,
        iat: now,
        kind: "guest",
    };
    let sign = |secret: &[u8], exp: u64| {
        jsonwebtoken::encode(
            &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
            &claims(exp),
            &jsonwebtoken::EncodingKey::from_secret(secret).expect("key"),
        )
        .expect("sign")
    };
    let b64 = |json: serde_json::Value| URL_SAFE_NO_PAD.encode(json.to_string());
    match rng.below(9) {
        0 => (String::new(), "empty"),
        1 => (format!("Bearer {}", rng.ascii(30)), "garbage"),
        2 => (
            format!(
                "Bearer {}.{}.",
                b64(serde_json::json!({"alg": "none", "typ": "JWT"})),
                b64(serde_json::to_value(claims(now + 900)).expect("claims"))
            ),
            "alg none",
        ),
        3 => (
            format!(
                "Bearer {}",
                sign(b"another secret, also 32+ bytes long!", now + 900)
            ),
            "other secret",
        ),
        4 => (
            format!("Bearer {}", sign(TEST_SECRET, now - 3_600)),
            "expired",
        ),
        5 => {
            // A stranger's real token with the victim's id pasted into its claims.
            let real = &victim.token;
            let mut parts = real.split('.');
            let (header, _, signature) = (parts.next(), parts.next(), parts.next());
            let payload = b64(serde_json::to_value(claims(now + 900)).expect("claims"));
            (
                format!(
                    "Bearer {}.{payload}.{}",
                    header.unwrap_or_default(),
                    signature.unwrap_or_default()
                ),
                "tampered subject",
            )
        }
        6 => (format!("Bearer {}", "a".repeat(3_000)), "oversized"),
        7 => (format!("Basic {}", victim.token), "wrong scheme"),
        _ => {
            // The victim's real token with its signature's last character changed.
            let mut token = victim.token.clone();
            let last = token.pop().unwrap_or('A');
            token.push(if last == 'A' { 'B' } else { 'A' });
            (format!("Bearer {token}"), "bad signature")
        }
    }
}

/// The seated players' own bad requests against one game.
async fn play_attacks(rng: &mut Gen, target: &mut Target, stranger: &str, tally: &mut Tally) {
    let (mover, seq, legal) = next_legal(target).await;
    let other = 1 - mover;
    // The action id the mover committed in the setup (`Player::next_action_id`'s first).
    let committed = format!("{}-1", target.players[mover].id);
    // Ids the id policy refuses (1-64 of `[A-Za-z0-9_-]`).
    let bad_ids = [
        String::new(),
        "x".repeat(65),
        "a b".to_owned(),
        "a\u{0}b".to_owned(),
        "\u{202e}id".to_owned(),
        "é".to_owned(),
        "a/b".to_owned(),
        "🙂".to_owned(),
    ];
    let garbage = garbage_notations(target.kind);
    let foreign: Vec<pb::action::Action> = vec![
        pb::action::Action::Caro(pb::CaroAction { place: None }),
        pb::action::Action::Mancala(pb::MancalaAction { pit: 99 }),
        pb::action::Action::Quoridor(pb::QuoridorAction::default()),
        pb::action::Action::Backgammon(pb::BackgammonAction::default()),
        pb::action::Action::Junqi(pb::JunqiAction::default()),
    ];
    for _ in 0..PLAY_REQUESTS_PER_GAME {
        let kind = rng.below(8);
        let (who, expected_seq, action_id, action, what) = match kind {
            // Out of turn: the other player sends the mover's legal action.
            0 => (
                other,
                seq,
                format!("oot-{}", rng.u64()),
                legal.clone(),
                "out of turn",
            ),
            // Stale and future seqs.
            1 => {
                let stale = *rng.pick(&[0, seq - 1, seq + 1, seq + 1_000, u64::MAX]);
                (
                    mover,
                    stale,
                    format!("stale-{}", rng.u64()),
                    legal.clone(),
                    "wrong seq",
                )
            }
            // Garbage notation at the right seq.
            2 | 3 => {
                let text = rng.pick(&garbage).clone();
                let action = pb::Action::notation(text);
                (
                    mover,
                    seq,
                    format!("junk-{}", rng.u64()),
                    action,
                    "garbage notation",
                )
            }
            // Another game's structured action (or this game's, out of range).
            4 => {
                let action = pb::Action {
                    action: Some(rng.pick(&foreign).clone()),
                };
                (
                    mover,
                    seq,
                    format!("alien-{}", rng.u64()),
                    action,
                    "structured junk",
                )
            }
            // Ids the policy refuses, on a legal action.
            5 => (
                mover,
                seq,
                rng.pick(&bad_ids).clone(),
                legal.clone(),
                "bad action id",
            ),
            // The mover's committed action id, for another (legal) action: the first commit
            // answers, nothing is applied.
            6 => (
                mover,
                seq,
                committed.clone(),
                legal.clone(),
                "reused action id",
            ),
            // No action at all.
            _ => (
                mover,
                seq,
                format!("none-{}", rng.u64()),
                pb::Action { action: None },
                "no action",
            ),
        };
        let player = &mut target.players[who];
        let answer = player
            .client
            .submit_action(pb::SubmitActionRequest {
                game_id: target.game_id.clone(),
                expected_seq,
                action_id: action_id.clone(),
                action: Some(action.clone()),
            })
            .await;
        let label = format!("{} {what} ({action_id:.40}, {action:?})", target.kind);
        match answer {
            // A reused action id answers with the first commit of that id, changing nothing.
            Ok(response) if what == "reused action id" && response.get_ref().duplicate => {
                tally.answer(&label, Ok(()));
            }
            Ok(_) => tally.fault(format!("{label}: accepted")),
            Err(status) => tally.answer(&label, Err(status)),
        }
    }
    // Strangers and bad ids in the other calls a seated player makes.
    let mut player = target.players[mover].client.clone();
    for game_id in [
        String::new(),
        "x".repeat(65),
        "no such game".to_owned(),
        "unknown-game".to_owned(),
        stranger.to_owned(),
    ] {
        let answer = player
            .get_game(pb::GetGameRequest {
                game_id: game_id.clone(),
            })
            .await
            .map(drop);
        tally.answer(&format!("GetGame {game_id:.20}"), answer);
    }
    // A draw answered that nobody offered.
    let answer = target.players[other]
        .respond_draw(&target.game_id, true)
        .await
        .map(drop);
    match answer {
        Ok(()) => tally.fault(format!(
            "{}: a draw accepted that nobody offered",
            target.kind
        )),
        Err(status) => tally.answer("RespondDraw without an offer", Err(status)),
    }
}

/// Moves in a game that is over.
async fn finished_attacks(rng: &mut Gen, finished: &(String, [Player; 2]), tally: &mut Tally) {
    let (game_id, players) = finished;
    for i in 0..200 {
        let mut client = players[i % 2].client.clone();
        let answer = client
            .submit_action(pb::SubmitActionRequest {
                game_id: game_id.clone(),
                expected_seq: *rng.pick(&[0, 1, 2, 3, u64::MAX]),
                action_id: format!("late-{i}"),
                action: Some(pb::Action::notation(
                    rng.pick(&["H8", "A1", "O15", "G7"]).to_string(),
                )),
            })
            .await;
        match answer {
            Ok(_) => tally.fault(format!("a move accepted in finished game {game_id}")),
            Err(status) => tally.answer("a move after the end", Err(status)),
        }
    }
}

/// Text no game accepts as an action, shaped like each game's notation: off the board,
/// trailing junk, wrong separators, control characters, overlong.
fn garbage_notations(kind: &str) -> Vec<String> {
    let mut junk: Vec<String> = [
        "",
        " ",
        "\u{0}",
        "\t\n",
        "🙂",
        "NaN",
        "-",
        "--",
        "?",
        "\u{202e}H8",
        "x".repeat(5_000).as_str(),
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let shaped: &[&str] = match kind {
        "caro" => &[
            "A0", "P16", "Z1", "H", "8", "H8H8", "H-8", "HH8", "A-1", "H8 H9", "Q0",
        ],
        "mancala" => &[
            "0", "7", "8", "13", "99", "-1", "1 2", "1.5", "one", "pit", "3.0",
        ],
        "quoridor" => &[
            "j1", "a10", "e0", "e9z", "z9h", "a1vv", "e2e3", "i9v", "wall", "a0h",
        ],
        "backgammon" => &[
            "25/30",
            "0/-1",
            "bar/26",
            "24/13/2/1",
            "6/0*/0",
            "8/5 8/5 8/5 8/5 8/5",
            "beaver beaver",
            "26/20",
            "13//7",
        ],
        _ => &[
            "f1", "a13", "a0", "c6-c6-c6", "flip", "a1xb2", "z9", "c6-", "-c6", "k3-c3",
        ],
    };
    junk.extend(shaped.iter().map(|s| (*s).to_owned()));
    junk
}
