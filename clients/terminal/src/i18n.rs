//! The client's words in English and Vietnamese, chosen from the environment as POSIX says:
//! `LC_ALL`, then `LC_MESSAGES`, then `LANG` (`vi_VN.UTF-8` → Vietnamese, anything else →
//! English). Game and rule names are the seed sites' (cờ caro on cocaro, Rào chắn on Ping44).
//! Typed commands (`resign`, `roll`, `H8`…) and the games' notation stay as they are in both
//! languages; the server's own words (a refusal, an outcome's reason) are shown as sent.
//!
//! [`tr`] looks a key up; [`trf`] fills its `{name}` placeholders. Both tables have the same
//! keys and the same placeholders (tests below), and every key the sources use is in them.

#[cfg(not(test))]
use std::sync::OnceLock;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    Vi,
}

/// The language a locale string names (`vi`, `vi_VN.UTF-8`, `en_US`, `C`…).
pub fn lang_of_locale(locale: &str) -> Option<Lang> {
    if locale.is_empty() {
        return None;
    }
    let base = locale
        .split(['_', '.', '@', '-'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    Some(if base == "vi" { Lang::Vi } else { Lang::En })
}

/// The first locale variable set (LC_ALL, LC_MESSAGES, LANG) decides, as POSIX says.
pub fn lang_from_env(get: impl Fn(&str) -> Option<String>) -> Lang {
    ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .find_map(|name| get(name).as_deref().and_then(lang_of_locale))
        .unwrap_or(Lang::En)
}

#[cfg(not(test))]
pub fn lang() -> Lang {
    static LANG: OnceLock<Lang> = OnceLock::new();
    *LANG.get_or_init(|| lang_from_env(|name| std::env::var(name).ok()))
}

// Unit tests read English unless one asks otherwise: a developer's own LANG must not change
// what they assert.
#[cfg(test)]
thread_local! {
    static TEST_LANG: std::cell::Cell<Lang> = const { std::cell::Cell::new(Lang::En) };
}

#[cfg(test)]
pub fn lang() -> Lang {
    TEST_LANG.with(std::cell::Cell::get)
}

#[cfg(test)]
pub fn set_test_lang(lang: Lang) {
    TEST_LANG.with(|cell| cell.set(lang));
}

fn table(lang: Lang) -> &'static [(&'static str, &'static str)] {
    match lang {
        Lang::En => EN,
        Lang::Vi => VI,
    }
}

/// The string for `key` in the current language (the key itself if it is missing, which the
/// tests below rule out for every key the sources use).
pub fn tr(key: &'static str) -> &'static str {
    let found = table(lang()).iter().find(|(k, _)| *k == key);
    found.map_or(key, |(_, text)| text)
}

/// `tr(key)` with each `{name}` replaced by its value.
pub fn trf(key: &'static str, params: &[(&str, &dyn std::fmt::Display)]) -> String {
    let mut text = tr(key).to_owned();
    for (name, value) in params {
        text = text.replace(&format!("{{{name}}}"), &value.to_string());
    }
    text
}

const EN: &[(&str, &str)] = &[
    // play.rs
    ("play.signedIn", "signed in as {name} ({kind}, {id})"),
    ("play.account", "account"),
    ("play.guest", "guest"),
    (
        "play.againstComputer",
        "game {game} against the computer ({level}), you are seat {seat}; unrated",
    ),
    ("play.matched", "matched: game {game}, you are seat {seat}"),
    (
        "play.notPlayable",
        "game {game} is not one this client can play",
    ),
    (
        "play.computerFailed",
        "cannot start a game against the computer: {reason}",
    ),
    ("play.noGame", "the server sent no game"),
    ("play.queueFailed", "cannot join the queue: {reason}"),
    ("play.quitHint", "type quit to leave the queue"),
    (
        "play.queueClosed",
        "the server closed the queue before a match was found",
    ),
    ("play.findFailed", "finding a match failed: {reason}"),
    ("play.noGameId", "matched, but the server sent no game id"),
    ("play.ticketCancelled", "the queue ticket was cancelled"),
    ("play.waiting", "waiting for an opponent… {seconds} s "),
    (
        "play.stillWaiting",
        "still waiting for an opponent; type quit to leave the queue",
    ),
    ("play.leftQueue", "left the queue"),
    (
        "play.matchedFirstResigned",
        "a match was found first: resigned game {game}",
    ),
    (
        "play.matchedFirstFailed",
        "a match was found first (game {game}); resigning failed: {reason}",
    ),
    ("play.leaveFailed", "leaving the queue failed: {reason}"),
    (
        "play.inputClosed",
        "input closed: following the game without commands (ctrl-c leaves)",
    ),
    ("play.clockWarning", "{seconds} s left to move!"),
    ("play.notYourTurn", "not your turn yet"),
    (
        "play.unknownCommand",
        "unknown command {text}: type help for the list",
    ),
    ("play.resigned", "resigned"),
    ("play.resignFailed", "resigning failed: {reason}"),
    ("play.bye", "bye"),
    (
        "play.noAbsenceChoice",
        "there is no choice to make: wait and win answer an opponent who did not come back (C13, friend rooms)",
    ),
    ("play.noDrawOffer", "there is no draw offer to answer"),
    ("play.movedOn", "{message}: the game moved on, refreshing"),
    ("play.refreshedAfter", "refreshed after: {message}"),
    ("prompt.caro", "your move (a cell like H8, or help)> "),
    (
        "prompt.mancala",
        "your sow (a pit number; ? lists them, help)> ",
    ),
    (
        "prompt.quoridor",
        "your move (a cell like e2, a wall like e3h or e3v, pass; ? lists them)> ",
    ),
    (
        "prompt.junqi",
        "your action (c6 flips, c6-c7 moves; ? lists them)> ",
    ),
    ("prompt.rollOrDouble", "roll or double> "),
    ("prompt.roll", "roll> "),
    ("prompt.takeDropBeaver", "take, drop or beaver> "),
    ("prompt.takeDrop", "take or drop> "),
    ("prompt.acceptReject", "accept or reject> "),
    (
        "prompt.backgammonPlay",
        "your play (like 24/18 13/11; ? lists them)> ",
    ),
    // watch.rs
    ("watch.listFailed", "cannot list live games: {reason}"),
    ("watch.none", "no live games right now"),
    ("watch.noneContext", "no live games"),
    ("watch.newest", "watching the newest: {game}"),
    ("watch.listHeader", "live games (newest first):"),
    // render.rs
    ("render.noMoves", "moves: none yet"),
    ("render.moves", "moves:"),
    ("render.seat", "seat {seat}"),
    ("render.noLegal", "no legal actions listed right now"),
    ("render.legal", "legal:"),
    ("render.you", " — you"),
    ("render.gameStarted", "game started: {players}"),
    ("render.gameLine", "game {game}: {players}"),
    ("render.versus", " vs "),
    ("render.yourTurn", "your turn ({mark})"),
    ("render.toMove", "{who} to move"),
    ("render.secondsLeft", " — {seconds} s left"),
    ("render.nobodyToMove", "nobody to move"),
    (
        "render.offersDrawAnswer",
        "{who} offers a draw: type accept or decline",
    ),
    ("render.drawOfferedBy", "draw offered by {who}"),
    ("render.gameOver", "game over"),
    ("render.gameOverWhat", "game over: {what}{why}"),
    ("render.aWin", "a win"),
    ("render.wins", "{who} wins"),
    ("render.and", " and "),
    ("render.draw", "draw"),
    ("render.cancelled", "cancelled, no winner"),
    ("render.ended", "ended"),
    ("render.byServer", " (played by the server)"),
    ("render.ranOutOfTime", "{who} ran out of time"),
    ("render.timeIsUp", "time is up for {who}: {effect}"),
    ("render.resigned", "{who} resigned"),
    (
        "render.tookBack",
        "{who} took back {actions} action(s): the position of #{seq} is back",
    ),
    ("render.offersDraw", "{who} offers a draw"),
    ("render.declinedDraw", "{who} declined the draw"),
    ("render.drawAgreed", "draw agreed ({who} had offered)"),
    (
        "render.disconnectedFor",
        "{who} disconnected: {seconds} s to come back",
    ),
    ("render.disconnected", "{who} disconnected"),
    ("render.isBack", "{who} is back"),
    ("render.didNotComeBack", "{who} did not come back: {effect}"),
    (
        "render.absenceChoice",
        "{who} did not come back; {chooser} chooses (C13): {options}",
    ),
    (
        "render.absenceWaitWinDraw",
        "wait (one more minute), win or draw",
    ),
    ("render.absenceWinDraw", "win or draw"),
    (
        "render.waitsForOne",
        "{chooser} waits one more minute for {who}",
    ),
    ("render.chose", "{chooser} chose: {effect}"),
    // account.rs
    ("account.cannotReadPassword", "cannot read the password"),
    (
        "account.cannotReadPasswordStdin",
        "cannot read the password from standard input",
    ),
    ("account.passwordPrompt", "password (8 to 128 characters): "),
    ("account.passwordAgain", "the same again: "),
    (
        "account.passwordsDiffer",
        "the passwords differ; nothing was registered",
    ),
    (
        "account.registered",
        "registered {username} ({name}) and signed in; player id {id}",
    ),
    ("account.register", "register"),
    ("account.passwordFor", "password for {username}: "),
    (
        "account.signedIn",
        "signed in as {username} ({name}); the session is saved in {path}",
    ),
    ("account.signIn", "sign in"),
    ("account.cannot", "cannot {what}: {reason}"),
    ("account.signedOut", "signed out {username}"),
    ("account.notSignedIn", "not signed in"),
    (
        "account.notSignedInOn",
        "not signed in on {server}: `ludus login` first",
    ),
    // watch.rs: a game's settings in a line; lib.rs: the options' checks
    ("name.caroSize", "caro {side}x{side}"),
    ("name.quoridorSize", "quoridor {side}x{side}"),
    ("name.backgammonMatch", "backgammon match to {length}"),
    ("name.backgammonMoney", "backgammon money"),
    ("name.mancalaKalah", "mancala kalah"),
    ("name.mancalaCongklak", "mancala congklak"),
    ("name.junqi", "junqi"),
    (
        "options.caroSize",
        "a caro board is 15 or 19 (C1), not {size}",
    ),
    (
        "options.quoridorSize",
        "a quoridor board is 9, 11 or 13 (Q26), not {size}",
    ),
    (
        "options.boardSize",
        "the board is 15 or 19 (caro), or 9, 11 or 13 (quoridor)",
    ),
    // input.rs: the help of each game (the commands stay as typed, in both languages)
    (
        "help.caro",
        "commands:
  H8        place a stone (column letter A-O or A-S, row number from the top)
  resign    give up the game
  draw      offer a draw
  undo      take back your last move (against Easy or Medium, C17)
  accept    accept a draw offer
  decline   decline a draw offer
  wait      in a friend room, when your opponent did not come back (C13): wait one
            more minute (once); win takes the win, draw calls it a draw
  quit      leave (resigns a game in progress)
  help      this list
  (empty)   redraw the board",
    ),
    (
        "help.mancala",
        "commands:
  3         sow your pit 3 (pits count 1-6, or 1-7 in congklak, from your far end
            toward your store)
  ?         list the pits you may sow
  undo      take back your last sow (against the computer, M11)
  resign    give up the game
  draw      offer a draw; accept / decline answer one
  quit      leave (resigns a game in progress)
  help      this list
  (empty)   redraw the board",
    ),
    (
        "help.quoridor",
        "commands:
  e2        move your pawn to e2 (a step, a jump or a diagonal; files a-i from the left,
            ranks 1-9 from the bottom)
  e3h       place a wall along the top edges of e3 and f3
  e3v       place a wall along the right edges of e3 and e4
  pass      pass the turn
  ?         list the legal actions
  resign    give up the game
  draw      offer a draw; accept / decline answer one
  quit      leave (resigns a game in progress)
  help      this list
  (empty)   redraw the board",
    ),
    (
        "help.backgammon",
        "commands (points counted 1-24 from your own home board, bar and off):
  roll              roll the dice
  24/18 13/11       play the roll (also bar/22, 6/off, 8/2(2), 13/7*; no play when blocked)
  double            offer the cube before rolling
  take, drop, beaver   answer a double
  resign gammon     offer to resign a single, gammon or backgammon (the other accepts
                    or rejects: accept, reject)
  ?                 list the legal actions
  resign            give up the game at once
  quit              leave (resigns a game in progress)
  help              this list
  (empty)           redraw the board",
    ),
    (
        "help.junqi",
        "commands (points: a column a-e, then a row 1-12 from the bottom):
  c6        flip the face-down piece on c6 (also: flip c6)
  c6-c7     move your face-up piece from c6 to c7, attacking what is there (also:
            move c6-c7); until colours settle (J8) every action is a flip
  ?         list the legal actions
  resign    give up the game
  draw      offer a draw; accept / decline answer one
  quit      leave (resigns a game in progress)
  help      this list
  (empty)   redraw the board
the board: rCm a red commander, bEn a blue engineer; ### face down; ( ) a camp
(its piece cannot be attacked), { } a headquarters; === and | | railways, --- and
| roads, ^ a mountain (no link), \\ / camp diagonals; [ ] the last action's point,
< > where it moved from",
    ),
];

const VI: &[(&str, &str)] = &[
    ("play.signedIn", "đã đăng nhập: {name} ({kind}, {id})"),
    ("play.account", "tài khoản"),
    ("play.guest", "khách"),
    (
        "play.againstComputer",
        "ván {game} chơi với máy ({level}), bạn ngồi ghế {seat}; không tính điểm",
    ),
    (
        "play.matched",
        "đã ghép trận: ván {game}, bạn ngồi ghế {seat}",
    ),
    (
        "play.notPlayable",
        "ván {game} không chơi được bằng ứng dụng này",
    ),
    (
        "play.computerFailed",
        "không bắt đầu được ván với máy: {reason}",
    ),
    ("play.noGame", "máy chủ không gửi ván nào"),
    ("play.queueFailed", "không vào được hàng chờ: {reason}"),
    ("play.quitHint", "gõ quit để rời hàng chờ"),
    (
        "play.queueClosed",
        "máy chủ đóng hàng chờ trước khi tìm được trận",
    ),
    ("play.findFailed", "tìm trận thất bại: {reason}"),
    (
        "play.noGameId",
        "đã ghép trận nhưng máy chủ không gửi mã ván",
    ),
    ("play.ticketCancelled", "vé chờ đã bị hủy"),
    ("play.waiting", "đang tìm đối thủ… {seconds} giây "),
    (
        "play.stillWaiting",
        "vẫn đang tìm đối thủ; gõ quit để rời hàng chờ",
    ),
    ("play.leftQueue", "đã rời hàng chờ"),
    (
        "play.matchedFirstResigned",
        "đã ghép trận trước khi rời: đã đầu hàng ván {game}",
    ),
    (
        "play.matchedFirstFailed",
        "đã ghép trận trước khi rời (ván {game}); đầu hàng thất bại: {reason}",
    ),
    ("play.leaveFailed", "rời hàng chờ thất bại: {reason}"),
    (
        "play.inputClosed",
        "đã đóng đầu vào: theo dõi ván mà không gõ lệnh (ctrl-c để rời)",
    ),
    ("play.clockWarning", "còn {seconds} giây để đi!"),
    ("play.notYourTurn", "chưa đến lượt bạn"),
    (
        "play.unknownCommand",
        "không hiểu lệnh {text}: gõ help để xem danh sách",
    ),
    ("play.resigned", "đã đầu hàng"),
    ("play.resignFailed", "đầu hàng thất bại: {reason}"),
    ("play.bye", "tạm biệt"),
    (
        "play.noAbsenceChoice",
        "không có gì để chọn: wait và win dùng khi đối thủ không quay lại (C13, phòng bạn bè)",
    ),
    ("play.noDrawOffer", "không có lời xin hòa nào để trả lời"),
    (
        "play.movedOn",
        "{message}: ván đã sang nước khác, đang tải lại",
    ),
    ("play.refreshedAfter", "đã tải lại sau: {message}"),
    ("prompt.caro", "nước của bạn (một ô như H8, hoặc help)> "),
    ("prompt.mancala", "hố để rải (số hố; ? liệt kê, help)> "),
    (
        "prompt.quoridor",
        "nước của bạn (một ô như e2, tường như e3h hoặc e3v, pass; ? liệt kê)> ",
    ),
    (
        "prompt.junqi",
        "nước của bạn (c6 để lật, c6-c7 để đi; ? liệt kê)> ",
    ),
    (
        "prompt.rollOrDouble",
        "roll (đổ xúc xắc) hoặc double (gấp đôi)> ",
    ),
    ("prompt.roll", "roll (đổ xúc xắc)> "),
    (
        "prompt.takeDropBeaver",
        "take (nhận), drop (bỏ) hoặc beaver> ",
    ),
    ("prompt.takeDrop", "take (nhận) hoặc drop (bỏ)> "),
    (
        "prompt.acceptReject",
        "accept (chấp nhận) hoặc reject (từ chối)> ",
    ),
    (
        "prompt.backgammonPlay",
        "nước đi (như 24/18 13/11; ? liệt kê)> ",
    ),
    (
        "watch.listFailed",
        "không lấy được danh sách ván đang diễn ra: {reason}",
    ),
    ("watch.none", "hiện không có ván nào đang diễn ra"),
    ("watch.noneContext", "không có ván nào đang diễn ra"),
    ("watch.newest", "đang xem ván mới nhất: {game}"),
    ("watch.listHeader", "ván đang diễn ra (mới nhất trước):"),
    ("render.noMoves", "nước đi: chưa có"),
    ("render.moves", "nước đi:"),
    ("render.seat", "ghế {seat}"),
    ("render.noLegal", "hiện không có nước đi hợp lệ nào"),
    ("render.legal", "hợp lệ:"),
    ("render.you", " — bạn"),
    ("render.gameStarted", "ván bắt đầu: {players}"),
    ("render.gameLine", "ván {game}: {players}"),
    ("render.versus", " đấu "),
    ("render.yourTurn", "lượt của bạn ({mark})"),
    ("render.toMove", "lượt của {who}"),
    ("render.secondsLeft", " — còn {seconds} giây"),
    ("render.nobodyToMove", "không ai phải đi"),
    (
        "render.offersDrawAnswer",
        "{who} xin hòa: gõ accept (đồng ý) hoặc decline (từ chối)",
    ),
    ("render.drawOfferedBy", "{who} đã xin hòa"),
    ("render.gameOver", "hết ván"),
    ("render.gameOverWhat", "hết ván: {what}{why}"),
    ("render.aWin", "có người thắng"),
    ("render.wins", "{who} thắng"),
    ("render.and", " và "),
    ("render.draw", "hòa"),
    ("render.cancelled", "đã hủy, không ai thắng"),
    ("render.ended", "đã kết thúc"),
    ("render.byServer", " (máy chủ đi thay)"),
    ("render.ranOutOfTime", "{who} hết giờ"),
    ("render.timeIsUp", "hết giờ của {who}: {effect}"),
    ("render.resigned", "{who} đầu hàng"),
    (
        "render.tookBack",
        "{who} đi lại {actions} nước: thế cờ của #{seq} được khôi phục",
    ),
    ("render.offersDraw", "{who} xin hòa"),
    ("render.declinedDraw", "{who} từ chối hòa"),
    ("render.drawAgreed", "hai bên đồng ý hòa ({who} đã xin hòa)"),
    (
        "render.disconnectedFor",
        "{who} mất kết nối: còn {seconds} giây để quay lại",
    ),
    ("render.disconnected", "{who} mất kết nối"),
    ("render.isBack", "{who} đã quay lại"),
    ("render.didNotComeBack", "{who} không quay lại: {effect}"),
    (
        "render.absenceChoice",
        "{who} không quay lại; {chooser} chọn (C13): {options}",
    ),
    (
        "render.absenceWaitWinDraw",
        "wait (chờ thêm một phút), win (xử thắng) hoặc draw (hòa)",
    ),
    ("render.absenceWinDraw", "win (xử thắng) hoặc draw (hòa)"),
    ("render.waitsForOne", "{chooser} chờ {who} thêm một phút"),
    ("render.chose", "{chooser} đã chọn: {effect}"),
    ("account.cannotReadPassword", "không đọc được mật khẩu"),
    (
        "account.cannotReadPasswordStdin",
        "không đọc được mật khẩu từ đầu vào chuẩn",
    ),
    ("account.passwordPrompt", "mật khẩu (8 đến 128 ký tự): "),
    ("account.passwordAgain", "nhập lại: "),
    (
        "account.passwordsDiffer",
        "hai mật khẩu khác nhau; chưa đăng ký gì",
    ),
    (
        "account.registered",
        "đã đăng ký {username} ({name}) và đăng nhập; mã người chơi {id}",
    ),
    ("account.register", "đăng ký"),
    ("account.passwordFor", "mật khẩu của {username}: "),
    (
        "account.signedIn",
        "đã đăng nhập: {username} ({name}); phiên được lưu ở {path}",
    ),
    ("account.signIn", "đăng nhập"),
    ("account.cannot", "không {what} được: {reason}"),
    ("account.signedOut", "đã đăng xuất {username}"),
    ("account.notSignedIn", "chưa đăng nhập"),
    (
        "account.notSignedInOn",
        "chưa đăng nhập trên {server}: chạy `ludus login` trước",
    ),
    ("name.caroSize", "cờ caro {side}x{side}"),
    ("name.quoridorSize", "rào chắn {side}x{side}"),
    ("name.backgammonMatch", "backgammon, trận {length} điểm"),
    ("name.backgammonMoney", "backgammon ván lẻ (money)"),
    ("name.mancalaKalah", "mancala kalah"),
    ("name.mancalaCongklak", "mancala congklak"),
    ("name.junqi", "cờ quân lật"),
    (
        "options.caroSize",
        "bàn cờ caro là 15 hoặc 19 (C1), không phải {size}",
    ),
    (
        "options.quoridorSize",
        "bàn rào chắn là 9, 11 hoặc 13 (Q26), không phải {size}",
    ),
    (
        "options.boardSize",
        "bàn cờ là 15 hoặc 19 (cờ caro), hoặc 9, 11 hoặc 13 (rào chắn)",
    ),
    (
        "help.caro",
        "lệnh:
  H8        đánh một quân (chữ cột A-O hoặc A-S, số hàng tính từ trên xuống)
  resign    đầu hàng
  draw      xin hòa
  undo      đi lại nước vừa đánh (khi chơi với máy mức Dễ hoặc Vừa, C17)
  accept    đồng ý hòa
  decline   từ chối hòa
  wait      trong phòng bạn bè, khi đối thủ không quay lại (C13): chờ thêm một
            phút (một lần); win để xử thắng, draw để xử hòa
  quit      rời ván (đang chơi thì tính là đầu hàng)
  help      danh sách này
  (trống)   vẽ lại bàn cờ",
    ),
    (
        "help.mancala",
        "lệnh:
  3         rải hố số 3 của bạn (hố đánh số 1-6, hoặc 1-7 với congklak, từ đầu xa
            về phía kho của bạn)
  ?         liệt kê các hố được rải
  undo      đi lại lần rải cuối (khi chơi với máy, M11)
  resign    đầu hàng
  draw      xin hòa; accept / decline để trả lời
  quit      rời ván (đang chơi thì tính là đầu hàng)
  help      danh sách này
  (trống)   vẽ lại bàn",
    ),
    (
        "help.quoridor",
        "lệnh:
  e2        đi quân tới e2 (một bước, nhảy qua hoặc đi chéo; cột a-i từ trái sang,
            hàng 1-9 từ dưới lên)
  e3h       đặt tường dọc theo cạnh trên của e3 và f3
  e3v       đặt tường dọc theo cạnh phải của e3 và e4
  pass      bỏ lượt
  ?         liệt kê các nước hợp lệ
  resign    đầu hàng
  draw      xin hòa; accept / decline để trả lời
  quit      rời ván (đang chơi thì tính là đầu hàng)
  help      danh sách này
  (trống)   vẽ lại bàn",
    ),
    (
        "help.backgammon",
        "lệnh (điểm đánh số 1-24 từ bàn chủ của bạn, bar là thanh giữa, off là đưa quân ra):
  roll              đổ xúc xắc
  24/18 13/11       đi theo xúc xắc (cũng như bar/22, 6/off, 8/2(2), 13/7*; no play khi bị chặn)
  double            gấp đôi khối nhân đôi trước khi đổ
  take, drop, beaver   trả lời lời gấp đôi (nhận, bỏ, gấp đôi lại)
  resign gammon     xin thua một ván đơn, gammon hoặc backgammon (đối thủ chấp nhận
                    hoặc từ chối: accept, reject)
  ?                 liệt kê các nước hợp lệ
  resign            đầu hàng ngay
  quit              rời ván (đang chơi thì tính là đầu hàng)
  help              danh sách này
  (trống)           vẽ lại bàn",
    ),
    (
        "help.junqi",
        "lệnh (điểm: một cột a-e, rồi một hàng 1-12 từ dưới lên):
  c6        lật quân úp ở c6 (cũng được: flip c6)
  c6-c7     đi quân đã lật của bạn từ c6 tới c7, tấn công quân ở đó (cũng được:
            move c6-c7); trước khi định màu (J8) chỉ được lật quân
  ?         liệt kê các nước hợp lệ
  resign    đầu hàng
  draw      xin hòa; accept / decline để trả lời
  quit      rời ván (đang chơi thì tính là đầu hàng)
  help      danh sách này
  (trống)   vẽ lại bàn
bàn cờ: rCm tư lệnh đỏ, bEn công binh xanh; ### quân úp; ( ) trại (quân trong
trại không bị tấn công), { } đại bản doanh; === và | | đường sắt, --- và
| đường bộ, ^ núi (không nối), \\ / đường chéo của trại; [ ] điểm của nước vừa đi,
< > nơi quân vừa rời đi",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn keys(table: &[(&str, &str)]) -> BTreeSet<String> {
        table.iter().map(|(k, _)| (*k).to_owned()).collect()
    }

    fn placeholders(text: &str) -> BTreeSet<String> {
        text.split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_owned()))
            .collect()
    }

    #[test]
    fn both_tables_have_the_same_keys_once_each() {
        assert_eq!(keys(EN), keys(VI));
        assert_eq!(keys(EN).len(), EN.len(), "a key twice in EN");
        assert_eq!(keys(VI).len(), VI.len(), "a key twice in VI");
    }

    #[test]
    fn both_tables_use_the_same_placeholders() {
        for (key, en) in EN {
            let vi = VI.iter().find(|(k, _)| k == key).map(|(_, v)| *v);
            assert_eq!(vi.map(placeholders), Some(placeholders(en)), "{key}");
        }
    }

    // Every `tr("…")` / `trf("…"` in the client's sources names a key of the tables: a typo
    // would otherwise show the key to the player.
    #[test]
    fn every_key_the_sources_use_is_in_the_tables() {
        let known = keys(EN);
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = vec![src.clone()];
        let mut used = 0;
        while let Some(path) = files.pop() {
            if path.is_dir() {
                for entry in std::fs::read_dir(&path).into_iter().flatten().flatten() {
                    files.push(entry.path());
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || path.ends_with("i18n.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for call in ["tr(\"", "trf(\""] {
                let mut pieces = text.split(call);
                let mut before = pieces.next().unwrap_or_default();
                for rest in pieces {
                    // `tr(` itself, not the end of a longer name (`str(`).
                    let whole_name = !before
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
                    before = rest;
                    if !whole_name {
                        continue;
                    }
                    let key = rest.split('"').next().unwrap_or_default();
                    assert!(
                        known.contains(key),
                        "{}: unknown key {key:?}",
                        path.display()
                    );
                    used += 1;
                }
            }
        }
        assert!(used > 50, "the sources use the tables ({used} calls)");
    }

    #[test]
    fn the_locale_variables_choose_as_posix_says() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        assert_eq!(lang_from_env(env(&[("LANG", "vi_VN.UTF-8")])), Lang::Vi);
        assert_eq!(lang_from_env(env(&[("LANG", "en_US.UTF-8")])), Lang::En);
        assert_eq!(lang_from_env(env(&[])), Lang::En);
        assert_eq!(
            lang_from_env(env(&[("LC_ALL", "C"), ("LANG", "vi_VN.UTF-8")])),
            Lang::En,
            "LC_ALL wins"
        );
        assert_eq!(
            lang_from_env(env(&[
                ("LC_ALL", ""),
                ("LC_MESSAGES", "vi"),
                ("LANG", "en_GB")
            ])),
            Lang::Vi,
            "an empty LC_ALL is unset"
        );
    }

    #[test]
    fn placeholders_are_filled_in_the_chosen_language() {
        set_test_lang(Lang::Vi);
        assert_eq!(
            trf("render.toMove", &[("who", &"X (an)")]),
            "lượt của X (an)"
        );
        set_test_lang(Lang::En);
        assert_eq!(
            trf("render.toMove", &[("who", &"X (ann)")]),
            "X (ann) to move"
        );
    }
}
