//! The public port as a stranger meets it (ARCHITECTURE.md, "Security"): request bodies that are not the call's
//! message are the client's mistake (INVALID_ARGUMENT, reason MALFORMED_REQUEST, never
//! INTERNAL) and the gateway keeps serving; reflection lists only what the gateway serves.

use bytes::Bytes;
use ludus_proto::error_details::StatusExt;
use ludus_proto::pb;
use ludus_tests::{Ludus, raw, refused_with};
use tonic::{Code, Status};

async fn raw_call(ludus: &Ludus, path: &'static str, body: &'static [u8]) -> Result<Bytes, Status> {
    raw::unary(ludus.channel().await, path, Bytes::from_static(body), None).await
}

#[tokio::test]
async fn an_undecodable_body_is_invalid_argument_not_internal() {
    let ludus = Ludus::start().await;
    let cases: [(&str, &[u8]); 3] = [
        // Field 1 (game_id, a string) says 5 bytes follow; 2 do.
        ("truncated", &[0x0a, 0x05, b'a', b'b']),
        // Field 1 as a string of invalid UTF-8.
        ("invalid UTF-8", &[0x0a, 0x02, 0xff, 0xfe]),
        // Wire type 7 does not exist.
        ("unknown wire type", &[0x0f, 0x00]),
    ];
    for (what, body) in cases {
        let err = raw_call(&ludus, "/ludus.v1.Gateway/GetGame", body)
            .await
            .expect_err(what);
        assert_eq!(err.code(), Code::InvalidArgument, "{what}: {err:?}");
        assert!(
            err.message().starts_with("request body: "),
            "{what}: {}",
            err.message()
        );
        let info = err
            .get_error_details()
            .error_info()
            .cloned()
            .expect("ErrorInfo");
        assert_eq!(info.reason, "MALFORMED_REQUEST", "{what}");
    }
    // Still serving: a well-formed call is judged on its merits (no token: UNAUTHENTICATED).
    let err = raw_call(&ludus, "/ludus.v1.Gateway/GetGame", &[0x0a, 0x01, b'g'])
        .await
        .expect_err("no token");
    assert_eq!(err.code(), Code::Unauthenticated);
    ludus.shutdown().await;
}

/// The services reflection lists on `channel`, sorted, asked in protocol version `$version`
/// (`v1` or `v1alpha`: the two modules have the same shapes under different names).
macro_rules! listed_services {
    ($version:ident, $channel:expr) => {{
        use tonic_reflection::pb::$version::ServerReflectionRequest;
        use tonic_reflection::pb::$version::server_reflection_client::ServerReflectionClient;
        use tonic_reflection::pb::$version::server_reflection_request::MessageRequest;
        use tonic_reflection::pb::$version::server_reflection_response::MessageResponse;

        let request = ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        };
        let mut answers = ServerReflectionClient::new($channel)
            .server_reflection_info(tokio_stream::iter([request]))
            .await
            .expect("reflection answers")
            .into_inner();
        let answer = answers.message().await.expect("an answer").expect("one");
        let Some(MessageResponse::ListServicesResponse(list)) = answer.message_response else {
            panic!("expected a service list: {answer:?}");
        };
        let mut names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
        names.sort();
        names
    }};
}

#[tokio::test]
async fn reflection_on_the_public_port_lists_only_what_the_gateway_serves() {
    let ludus = Ludus::start().await;
    // Regression: GameState, Matchmaking, Ratings and Timers used to be listed too. Both
    // protocol versions are served (clients differ in which one they ask), with one listing.
    let served = ["grpc.health.v1.Health", "ludus.v1.Gateway"];
    assert_eq!(listed_services!(v1, ludus.channel().await), served);
    assert_eq!(listed_services!(v1alpha, ludus.channel().await), served);
    ludus.shutdown().await;
}

/// The services described by the files reflection (v1) answers for `symbol` on `channel`,
/// or the error it answers.
async fn services_described_for(
    channel: tonic::transport::Channel,
    symbol: &str,
) -> Result<Vec<String>, i32> {
    use prost::Message;
    use tonic_reflection::pb::v1::ServerReflectionRequest;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::FileContainingSymbol(symbol.to_owned())),
    };
    let mut answers = ServerReflectionClient::new(channel)
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .expect("reflection answers")
        .into_inner();
    // tonic-reflection answers an unknown symbol by ending the stream with that status (other
    // servers send an ErrorResponse message): either is a refusal.
    let answer = match answers.message().await {
        Ok(answer) => answer.expect("one answer"),
        Err(status) => return Err(status.code() as i32),
    };
    match answer.message_response {
        Some(MessageResponse::FileDescriptorResponse(files)) => Ok(files
            .file_descriptor_proto
            .iter()
            .flat_map(|bytes| {
                let file = prost_types::FileDescriptorProto::decode(bytes.as_slice())
                    .expect("a file descriptor");
                let package = file.package().to_owned();
                file.service
                    .into_iter()
                    .map(move |s| format!("{package}.{}", s.name()))
            })
            .collect()),
        Some(MessageResponse::ErrorResponse(error)) => Err(error.error_code),
        other => panic!("unexpected answer: {other:?}"),
    }
}

/// Security (ARCHITECTURE.md): asked by symbol, the public port's reflection describes the
/// gateway and nothing internal (it used to answer with GameState's whole definition).
#[tokio::test]
async fn reflection_by_symbol_does_not_describe_the_internal_services() {
    let ludus = Ludus::start().await;
    for internal in [
        "ludus.v1.GameState",
        "ludus.v1.Accounts",
        "ludus.v1.GameState.CreateGame",
    ] {
        let answer = services_described_for(ludus.channel().await, internal).await;
        assert_eq!(
            answer,
            Err(Code::NotFound as i32),
            "{internal} is not described"
        );
    }
    let gateway = services_described_for(ludus.channel().await, "ludus.v1.Gateway")
        .await
        .expect("the gateway is described");
    assert!(
        gateway.contains(&"ludus.v1.Gateway".to_owned()),
        "{gateway:?}"
    );
    assert!(
        gateway.iter().all(|s| s == "ludus.v1.Gateway"),
        "only the gateway among the files served: {gateway:?}"
    );
    ludus.shutdown().await;
}

#[tokio::test]
async fn a_flood_of_refused_tokens_is_cut_off_and_signed_in_players_play_on() {
    let ludus = Ludus::start().await;
    let mut player = ludus.player("steady").await;
    let mut forger = ludus_proto::pb::gateway_client::GatewayClient::new(ludus.channel().await);
    let mut answers = Vec::new();
    for _ in 0..80 {
        let mut request = tonic::Request::new(ludus_proto::pb::ListLiveGamesRequest { limit: 1 });
        request.metadata_mut().insert(
            "authorization",
            "Bearer not.a.token".parse().expect("ascii"),
        );
        answers.push(
            forger
                .list_live_games(request)
                .await
                .expect_err("refused")
                .code(),
        );
    }
    // The first ones are told why; past the burst the address is cut off.
    assert_eq!(answers[0], Code::Unauthenticated);
    assert_eq!(
        answers.last(),
        Some(&Code::ResourceExhausted),
        "{answers:?}"
    );
    // Tokens that verify are limited per player, not per address.
    player
        .client
        .list_live_games(ludus_proto::pb::ListLiveGamesRequest { limit: 1 })
        .await
        .expect("a signed-in player is not cut off");
    ludus.shutdown().await;
}

/// `ListGameOptions` takes no token, so its limit is per address: a flood from one is
/// refused past its burst, and the players on that address go on playing.
#[tokio::test]
async fn a_flood_of_game_option_reads_is_cut_off_and_players_play_on() {
    let ludus = Ludus::start().await;
    let mut player = ludus.player("steady").await;
    let mut stranger = pb::gateway_client::GatewayClient::new(ludus.channel().await);
    let mut served = 0;
    let refused = loop {
        match stranger
            .list_game_options(pb::ListGameOptionsRequest {})
            .await
        {
            Ok(_) => served += 1,
            Err(status) => break status,
        }
        assert!(served < 1_000, "a flood of option reads was never refused");
    };
    assert!(served >= 200, "the burst is served first ({served})");
    assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
    assert!(
        refused.message().contains("game-option reads"),
        "the refusal names what was limited: {refused:?}"
    );
    player
        .client
        .list_live_games(pb::ListLiveGamesRequest { limit: 1 })
        .await
        .expect("a signed-in player is not cut off by the address's option reads");
    ludus.shutdown().await;
}

#[tokio::test]
async fn an_oversized_authorization_header_is_refused_with_a_status_and_the_connection_lives() {
    let ludus = Ludus::start().await;
    let channel = ludus.channel().await;
    let mut player = ludus.player("neighbour").await;
    let mut client = ludus_proto::pb::gateway_client::GatewayClient::new(channel.clone());
    for size in [20_000, 64_000] {
        let mut request = tonic::Request::new(ludus_proto::pb::ListLiveGamesRequest { limit: 1 });
        let header = format!("Bearer {}", "a".repeat(size));
        request
            .metadata_mut()
            .insert("authorization", header.parse().expect("ascii"));
        let err = client.list_live_games(request).await.expect_err("refused");
        // Regression: HTTP 431 (UNKNOWN) at 20 KB, a GOAWAY for the whole connection at 64 KB.
        assert_eq!(err.code(), Code::Unauthenticated, "{size}: {err:?}");
        assert!(err.message().contains("bytes"), "{}", err.message());
    }
    // The same connection still carries calls.
    let err = client
        .list_live_games(ludus_proto::pb::ListLiveGamesRequest { limit: 1 })
        .await
        .expect_err("no token");
    assert_eq!(err.code(), Code::Unauthenticated);
    player
        .client
        .list_live_games(ludus_proto::pb::ListLiveGamesRequest { limit: 1 })
        .await
        .expect("others are unaffected");
    ludus.shutdown().await;
}

#[tokio::test]
async fn internal_servers_refuse_a_caller_that_is_not_a_ludus_service() {
    let ludus = Ludus::start().await;
    let (game, _x, _o) =
        ludus_tests::quick_match_pair(&ludus, ["xan", "olu"], ludus_tests::caro_settings()).await;
    let move_as_x = || ludus_proto::pb::ApplyActionRequest {
        game_id: game.clone(),
        player_id: "whoever".into(),
        expected_seq: 1,
        action_id: "forged".into(),
        action: None,
    };
    // A local process that found game-state's loopback port (it used to commit
    // moves as any player).
    let mut stranger = ludus_proto::pb::game_state_client::GameStateClient::new(
        ludus_tests::connect(ludus.game_state).await,
    );
    let err = stranger
        .apply_action(move_as_x())
        .await
        .expect_err("no service credential");
    assert_eq!(err.code(), Code::Unauthenticated, "{err:?}");
    assert!(
        err.message().contains("service credential"),
        "{}",
        err.message()
    );

    // A credential signed with a secret this deployment never gave out.
    let mut request = tonic::Request::new(move_as_x());
    request.metadata_mut().insert(
        "x-ludus-service",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0.c2lnbmF0dXJl"
            .parse()
            .expect("ascii"),
    );
    let err = stranger.apply_action(request).await.expect_err("forged");
    assert_eq!(err.code(), Code::Unauthenticated);

    // A Ludus service's call passes the check and is judged on its merits.
    let mut service = ludus_proto::pb::game_state_client::GameStateClient::new(
        ludus_tests::connect_internal(ludus.game_state).await,
    );
    let err = service
        .apply_action(move_as_x())
        .await
        .expect_err("no action given");
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    ludus.shutdown().await;
}

/// ListGameOptions answers a stranger (no token: it is the same catalog for everyone), and
/// what it describes is what the real servers accept: a Quoridor table of the most players it
/// lists at its longest computer clock starts, one step past that clock is refused naming
/// Q28, and a Backgammon quick match one step past its clocks is refused naming B20.
#[tokio::test]
async fn list_game_options_needs_no_token_and_describes_what_the_servers_accept() {
    use ludus_proto::pb::{GameOptionKind, PlayMode, gateway_client::GatewayClient};

    let ludus = Ludus::start().await;
    let mut stranger = GatewayClient::new(ludus.channel().await);
    let catalog = stranger
        .list_game_options(pb::ListGameOptionsRequest {})
        .await
        .expect("public: no token needed")
        .into_inner()
        .catalog
        .expect("a catalog");
    let games: Vec<&str> = catalog.games.iter().map(|g| g.game.as_str()).collect();
    assert_eq!(
        games,
        ["caro", "quoridor", "backgammon", "mancala", "junqi"]
    );
    let game = |name: &str| {
        catalog
            .games
            .iter()
            .find(|g| g.game == name)
            .expect("described")
    };
    let clock = |name: &str, mode: PlayMode| {
        game(name)
            .options
            .iter()
            .find(|o| o.id == "clock" && o.modes.contains(&(mode as i32)))
            .cloned()
            .expect("a clock option")
    };

    let quoridor = game("quoridor");
    let computer_clock = clock("quoridor", PlayMode::Computer);
    assert_eq!(computer_clock.kind(), GameOptionKind::Number);
    assert_eq!(computer_clock.rules, ["Q28"]);
    let settings = |turn_time_ms: i64| pb::GameSettings {
        options: Some(pb::game_settings::Options::Quoridor(pb::QuoridorOptions {
            players: quoridor.max_players,
            ..Default::default()
        })),
        turn_time_ms: turn_time_ms as u64,
    };
    let mut ann = ludus.player("ann").await;
    let game_started = ann
        .client
        .play_computer(pb::PlayComputerRequest {
            settings: Some(settings(computer_clock.max)),
            level: quoridor.computer_levels[0].level.clone(),
            computer_first: false,
        })
        .await
        .expect("the description's extremes are accepted")
        .into_inner()
        .game
        .expect("a game");
    assert_eq!(
        game_started.seats.len(),
        quoridor.max_players as usize,
        "Q4"
    );
    let past = ann
        .client
        .play_computer(pb::PlayComputerRequest {
            settings: Some(settings(computer_clock.max + computer_clock.step)),
            level: "easy".into(),
            computer_first: false,
        })
        .await;
    refused_with(past, Code::InvalidArgument, "settings.turn_time_ms: Q28: ");

    let quick_clock = clock("backgammon", PlayMode::QuickMatch);
    let longest = quick_clock
        .choices
        .iter()
        .map(|c| c.value)
        .max()
        .expect("choices");
    let mut bob = ludus.player("bob").await;
    let past = bob
        .queue(
            pb::GameSettings {
                options: Some(pb::game_settings::Options::Backgammon(Default::default())),
                turn_time_ms: (longest + 1000) as u64,
            },
            pb::MatchRanking::Default,
        )
        .await;
    refused_with(past, Code::InvalidArgument, "settings.turn_time_ms: B20: ");
    ludus.shutdown().await;
}
