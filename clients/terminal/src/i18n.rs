//! The client's words in English and Vietnamese. The language is `--lang en|vi` or the `lang`
//! command when given, else the environment's as POSIX says: `LC_ALL`, then `LC_MESSAGES`,
//! then `LANG` (`vi_VN.UTF-8` → Vietnamese, anything else → English). Game and rule names are
//! the seed sites' (cờ caro on cocaro, Rào chắn on Ping44, Cờ quân lật and its ranks on
//! JoyPip). Typed commands (`resign`, `roll`, `H8`…) and the games' notation (`rCm`, `bar/22`)
//! stay as they are in both languages; the server's own words (a refusal, an outcome's
//! reason) are shown as sent.
//!
//! [`tr`] looks a key up; [`trf`] fills its `{name}` placeholders. Every message is one row of
//! `MESSAGES`: (key, English, Vietnamese), so a row without both languages does not compile.
//! The tests below hold the rest: both languages use the same placeholders, the Vietnamese
//! differs from the English except for an explicit list of names, every key the sources use
//! is in the table and every row is used, and no source prints, formats or returns as an error
//! a literal with words outside the table.

#[cfg(not(test))]
use std::sync::atomic::{AtomicU8, Ordering};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    Vi,
}

impl Lang {
    /// `en` or `vi`, as `--lang` and the `lang` command take it.
    pub fn parse(text: &str) -> Option<Lang> {
        match text.trim().to_ascii_lowercase().as_str() {
            "en" | "english" => Some(Lang::En),
            "vi" | "vietnamese" | "tiếng việt" | "tieng viet" => Some(Lang::Vi),
            _ => None,
        }
    }
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

/// The `--lang` value among command-line arguments (`--lang vi` or `--lang=vi`), if any: it
/// must be known before clap writes `--help`, so it is read ahead of parsing.
pub fn lang_from_args<I, S>(args: I) -> Option<Lang>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut args = args.into_iter();
    let mut found = None;
    while let Some(arg) = args.next() {
        let arg = arg.as_ref();
        if arg == "--" {
            break;
        }
        if arg == "--lang" {
            found = args.next().and_then(|value| Lang::parse(value.as_ref()));
        } else if let Some(value) = arg.strip_prefix("--lang=") {
            found = Lang::parse(value);
        }
    }
    found
}

#[cfg(not(test))]
const EN_CHOSEN: u8 = 1;
#[cfg(not(test))]
const VI_CHOSEN: u8 = 2;

/// The language for the rest of the run: `--lang`, the `lang` command, else the locale (0:
/// not chosen yet).
#[cfg(not(test))]
static CHOSEN: AtomicU8 = AtomicU8::new(0);

/// Switches the language of everything shown from now on (`--lang`, the `lang` command).
pub fn set_lang(lang: Lang) {
    #[cfg(test)]
    set_test_lang(lang);
    #[cfg(not(test))]
    CHOSEN.store(
        match lang {
            Lang::En => EN_CHOSEN,
            Lang::Vi => VI_CHOSEN,
        },
        Ordering::Relaxed,
    );
}

#[cfg(not(test))]
pub fn lang() -> Lang {
    match CHOSEN.load(Ordering::Relaxed) {
        EN_CHOSEN => Lang::En,
        VI_CHOSEN => Lang::Vi,
        _ => {
            let lang = lang_from_env(|name| std::env::var(name).ok());
            set_lang(lang);
            lang
        }
    }
}

// Unit tests read English unless one asks otherwise: a developer's own LANG must not change
// what they assert, and tests running at once must not switch each other's language.
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

/// What `make` returns when the player reads Vietnamese (English again afterwards).
#[cfg(test)]
pub fn in_vietnamese<T>(make: impl FnOnce() -> T) -> T {
    set_test_lang(Lang::Vi);
    let made = make();
    set_test_lang(Lang::En);
    made
}

/// The (English, Vietnamese) row of a key built at run time (the command line's help).
pub fn find(key: &str) -> Option<(&'static str, &'static str)> {
    MESSAGES
        .iter()
        .find(|(k, _, _)| *k == key)
        .map(|(_, en, vi)| (*en, *vi))
}

/// Every key of the table.
#[cfg(test)]
pub fn keys() -> impl Iterator<Item = &'static str> {
    MESSAGES.iter().map(|(key, _, _)| *key)
}

/// The string for `key` in `lang` (the key itself if it is missing, which the tests below
/// rule out for every key the sources use).
pub fn tr_in(lang: Lang, key: &'static str) -> &'static str {
    let found = MESSAGES.iter().find(|(k, _, _)| *k == key);
    found.map_or(key, |(_, en, vi)| match lang {
        Lang::En => en,
        Lang::Vi => vi,
    })
}

/// The string for `key` in the current language.
pub fn tr(key: &'static str) -> &'static str {
    tr_in(lang(), key)
}

/// `tr(key)` with each `{name}` replaced by its value.
pub fn trf(key: &'static str, params: &[(&str, &dyn std::fmt::Display)]) -> String {
    let mut text = tr(key).to_owned();
    for (name, value) in params {
        text = text.replace(&format!("{{{name}}}"), &value.to_string());
    }
    text
}

/// Every message: its key, then English, then Vietnamese. A row without both languages does
/// not compile.
const MESSAGES: &[(&str, &str, &str)] = &[
    (
        "play.signedIn",
        "signed in as {name} ({kind}, {id})",
        "đã đăng nhập: {name} ({kind}, {id})",
    ),
    ("play.account", "account", "tài khoản"),
    ("play.guest", "guest", "khách"),
    (
        "play.againstComputer",
        "game {game} against the computer ({level}), you are seat {seat}; unrated",
        "ván {game} chơi với máy ({level}), bạn ngồi ghế {seat}; không tính điểm",
    ),
    (
        "play.matched",
        "matched: game {game}, you are seat {seat}",
        "đã ghép trận: ván {game}, bạn ngồi ghế {seat}",
    ),
    (
        "play.notPlayable",
        "game {game} is not one this client can play",
        "ván {game} không chơi được bằng ứng dụng này",
    ),
    (
        "play.computerFailed",
        "cannot start a game against the computer: {reason}",
        "không bắt đầu được ván với máy: {reason}",
    ),
    (
        "play.noGame",
        "the server sent no game",
        "máy chủ không gửi ván nào",
    ),
    (
        "play.queueFailed",
        "cannot join the queue: {reason}",
        "không vào được hàng chờ: {reason}",
    ),
    (
        "play.quitHint",
        "type quit to leave the queue",
        "gõ quit để rời hàng chờ",
    ),
    (
        "play.queueClosed",
        "the server closed the queue before a match was found",
        "máy chủ đóng hàng chờ trước khi tìm được trận",
    ),
    (
        "play.findFailed",
        "finding a match failed: {reason}",
        "tìm trận thất bại: {reason}",
    ),
    (
        "play.noGameId",
        "matched, but the server sent no game id",
        "đã ghép trận nhưng máy chủ không gửi mã ván",
    ),
    (
        "play.ticketCancelled",
        "the queue ticket was cancelled",
        "vé chờ đã bị hủy",
    ),
    (
        "play.waiting",
        "waiting for an opponent… {seconds} s ",
        "đang tìm đối thủ… {seconds} giây ",
    ),
    (
        "play.stillWaiting",
        "still waiting for an opponent; type quit to leave the queue",
        "vẫn đang tìm đối thủ; gõ quit để rời hàng chờ",
    ),
    ("play.leftQueue", "left the queue", "đã rời hàng chờ"),
    (
        "play.matchedFirstResigned",
        "a match was found first: resigned game {game}",
        "đã ghép trận trước khi rời: đã đầu hàng ván {game}",
    ),
    (
        "play.matchedFirstFailed",
        "a match was found first (game {game}); resigning failed: {reason}",
        "đã ghép trận trước khi rời (ván {game}); đầu hàng thất bại: {reason}",
    ),
    (
        "play.leaveFailed",
        "leaving the queue failed: {reason}",
        "rời hàng chờ thất bại: {reason}",
    ),
    (
        "play.inputClosed",
        "input closed: following the game without commands (ctrl-c leaves)",
        "đã đóng đầu vào: theo dõi ván mà không gõ lệnh (ctrl-c để rời)",
    ),
    (
        "play.clockWarning",
        "{seconds} s left to move!",
        "còn {seconds} giây để đi!",
    ),
    ("play.notYourTurn", "not your turn yet", "chưa đến lượt bạn"),
    (
        "play.unknownCommand",
        "unknown command {text}: type help for the list",
        "không hiểu lệnh {text}: gõ help để xem danh sách",
    ),
    ("play.resigned", "resigned", "đã đầu hàng"),
    (
        "play.resignFailed",
        "resigning failed: {reason}",
        "đầu hàng thất bại: {reason}",
    ),
    ("play.bye", "bye", "tạm biệt"),
    (
        "play.noAbsenceChoice",
        "there is no choice to make: wait and win answer an opponent who did not come back (C13, friend rooms)",
        "không có gì để chọn: wait và win dùng khi đối thủ không quay lại (C13, phòng bạn bè)",
    ),
    (
        "play.noDrawOffer",
        "there is no draw offer to answer",
        "không có lời xin hòa nào để trả lời",
    ),
    (
        "play.movedOn",
        "{message}: the game moved on, refreshing",
        "{message}: ván đã sang nước khác, đang tải lại",
    ),
    (
        "play.refreshedAfter",
        "refreshed after: {message}",
        "đã tải lại sau: {message}",
    ),
    (
        "prompt.caro",
        "your move (a cell like H8, or help)> ",
        "nước của bạn (một ô như H8, hoặc help)> ",
    ),
    (
        "prompt.mancala",
        "your sow (a pit number; ? lists them, help)> ",
        "hố để rải (số hố; ? liệt kê, help)> ",
    ),
    (
        "prompt.quoridor",
        "your move (a cell like e2, a wall like e3h or e3v, pass; ? lists them)> ",
        "nước của bạn (một ô như e2, tường như e3h hoặc e3v, pass; ? liệt kê)> ",
    ),
    (
        "prompt.junqi",
        "your action (c6 flips, c6-c7 moves; ? lists them)> ",
        "nước của bạn (c6 để lật, c6-c7 để đi; ? liệt kê)> ",
    ),
    (
        "prompt.rollOrDouble",
        "roll or double> ",
        "roll (đổ xúc xắc) hoặc double (gấp đôi)> ",
    ),
    ("prompt.roll", "roll> ", "roll (đổ xúc xắc)> "),
    (
        "prompt.takeDropBeaver",
        "take, drop or beaver> ",
        "take (nhận), drop (bỏ) hoặc beaver> ",
    ),
    (
        "prompt.takeDrop",
        "take or drop> ",
        "take (nhận) hoặc drop (bỏ)> ",
    ),
    (
        "prompt.acceptReject",
        "accept or reject> ",
        "accept (chấp nhận) hoặc reject (từ chối)> ",
    ),
    (
        "prompt.backgammonPlay",
        "your play (like 24/18 13/11; ? lists them)> ",
        "nước đi (như 24/18 13/11; ? liệt kê)> ",
    ),
    (
        "watch.listFailed",
        "cannot list live games: {reason}",
        "không lấy được danh sách ván đang diễn ra: {reason}",
    ),
    (
        "watch.none",
        "no live games right now",
        "hiện không có ván nào đang diễn ra",
    ),
    (
        "watch.noneContext",
        "no live games",
        "không có ván nào đang diễn ra",
    ),
    (
        "watch.newest",
        "watching the newest: {game}",
        "đang xem ván mới nhất: {game}",
    ),
    (
        "watch.listHeader",
        "live games (newest first):",
        "ván đang diễn ra (mới nhất trước):",
    ),
    ("render.noMoves", "moves: none yet", "nước đi: chưa có"),
    ("render.moves", "moves:", "nước đi:"),
    ("render.seat", "seat {seat}", "ghế {seat}"),
    (
        "render.noLegal",
        "no legal actions listed right now",
        "hiện không có nước đi hợp lệ nào",
    ),
    ("render.legal", "legal:", "hợp lệ:"),
    ("render.you", " — you", " — bạn"),
    (
        "render.gameStarted",
        "game started: {players}",
        "ván bắt đầu: {players}",
    ),
    (
        "render.gameLine",
        "game {game}: {players}",
        "ván {game}: {players}",
    ),
    ("render.versus", " vs ", " đấu "),
    (
        "render.yourTurn",
        "your turn ({mark})",
        "lượt của bạn ({mark})",
    ),
    ("render.toMove", "{who} to move", "lượt của {who}"),
    (
        "render.secondsLeft",
        " — {seconds} s left",
        " — còn {seconds} giây",
    ),
    ("render.nobodyToMove", "nobody to move", "không ai phải đi"),
    (
        "render.offersDrawAnswer",
        "{who} offers a draw: type accept or decline",
        "{who} xin hòa: gõ accept (đồng ý) hoặc decline (từ chối)",
    ),
    (
        "render.drawOfferedBy",
        "draw offered by {who}",
        "{who} đã xin hòa",
    ),
    ("render.gameOver", "game over", "hết ván"),
    (
        "render.gameOverWhat",
        "game over: {what}{why}",
        "hết ván: {what}{why}",
    ),
    ("render.aWin", "a win", "có người thắng"),
    ("render.wins", "{who} wins", "{who} thắng"),
    ("render.and", " and ", " và "),
    ("render.draw", "draw", "hòa"),
    (
        "render.cancelled",
        "cancelled, no winner",
        "đã hủy, không ai thắng",
    ),
    ("render.ended", "ended", "đã kết thúc"),
    (
        "render.byServer",
        " (played by the server)",
        " (máy chủ đi thay)",
    ),
    (
        "render.ranOutOfTime",
        "{who} ran out of time",
        "{who} hết giờ",
    ),
    (
        "render.timeIsUp",
        "time is up for {who}: {effect}",
        "hết giờ của {who}: {effect}",
    ),
    ("render.resigned", "{who} resigned", "{who} đầu hàng"),
    (
        "render.tookBack",
        "{who} took back {actions} action(s): the position of #{seq} is back",
        "{who} đi lại {actions} nước: thế cờ của #{seq} được khôi phục",
    ),
    ("render.offersDraw", "{who} offers a draw", "{who} xin hòa"),
    (
        "render.declinedDraw",
        "{who} declined the draw",
        "{who} từ chối hòa",
    ),
    (
        "render.drawAgreed",
        "draw agreed ({who} had offered)",
        "hai bên đồng ý hòa ({who} đã xin hòa)",
    ),
    (
        "render.disconnectedFor",
        "{who} disconnected: {seconds} s to come back",
        "{who} mất kết nối: còn {seconds} giây để quay lại",
    ),
    (
        "render.disconnected",
        "{who} disconnected",
        "{who} mất kết nối",
    ),
    ("render.isBack", "{who} is back", "{who} đã quay lại"),
    (
        "render.didNotComeBack",
        "{who} did not come back: {effect}",
        "{who} không quay lại: {effect}",
    ),
    (
        "render.absenceChoice",
        "{who} did not come back; {chooser} chooses (C13): {options}",
        "{who} không quay lại; {chooser} chọn (C13): {options}",
    ),
    (
        "render.absenceWaitWinDraw",
        "wait (one more minute), win or draw",
        "wait (chờ thêm một phút), win (xử thắng) hoặc draw (hòa)",
    ),
    (
        "render.absenceWinDraw",
        "win or draw",
        "win (xử thắng) hoặc draw (hòa)",
    ),
    (
        "render.waitsForOne",
        "{chooser} waits one more minute for {who}",
        "{chooser} chờ {who} thêm một phút",
    ),
    (
        "render.chose",
        "{chooser} chose: {effect}",
        "{chooser} đã chọn: {effect}",
    ),
    (
        "account.cannotReadPassword",
        "cannot read the password",
        "không đọc được mật khẩu",
    ),
    (
        "account.cannotReadPasswordStdin",
        "cannot read the password from standard input",
        "không đọc được mật khẩu từ đầu vào chuẩn",
    ),
    (
        "account.passwordPrompt",
        "password (8 to 128 characters): ",
        "mật khẩu (8 đến 128 ký tự): ",
    ),
    ("account.passwordAgain", "the same again: ", "nhập lại: "),
    (
        "account.passwordsDiffer",
        "the passwords differ; nothing was registered",
        "hai mật khẩu khác nhau; chưa đăng ký gì",
    ),
    (
        "account.registered",
        "registered {username} ({name}) and signed in; player id {id}",
        "đã đăng ký {username} ({name}) và đăng nhập; mã người chơi {id}",
    ),
    ("account.register", "register", "đăng ký"),
    (
        "account.passwordFor",
        "password for {username}: ",
        "mật khẩu của {username}: ",
    ),
    (
        "account.signedIn",
        "signed in as {username} ({name}); the session is saved in {path}",
        "đã đăng nhập: {username} ({name}); phiên được lưu ở {path}",
    ),
    ("account.signIn", "sign in", "đăng nhập"),
    (
        "account.cannot",
        "cannot {what}: {reason}",
        "không {what} được: {reason}",
    ),
    (
        "account.signedOut",
        "signed out {username}",
        "đã đăng xuất {username}",
    ),
    ("account.notSignedIn", "not signed in", "chưa đăng nhập"),
    (
        "account.notSignedInOn",
        "not signed in on {server}: `ludus login` first",
        "chưa đăng nhập trên {server}: chạy `ludus login` trước",
    ),
    (
        "name.caroSize",
        "caro {side}x{side}",
        "cờ caro {side}x{side}",
    ),
    (
        "name.quoridorSize",
        "quoridor {side}x{side}",
        "rào chắn {side}x{side}",
    ),
    (
        "name.backgammonMatch",
        "backgammon match to {length}",
        "backgammon, trận {length} điểm",
    ),
    (
        "name.backgammonMoney",
        "backgammon money",
        "backgammon ván lẻ (money)",
    ),
    ("name.mancalaKalah", "mancala kalah", "mancala kalah"),
    (
        "name.mancalaCongklak",
        "mancala congklak",
        "mancala congklak",
    ),
    ("name.junqi", "junqi", "cờ quân lật"),
    (
        "options.caroSize",
        "a caro board is 15 or 19 (C1), not {size}",
        "bàn cờ caro là 15 hoặc 19 (C1), không phải {size}",
    ),
    (
        "options.quoridorSize",
        "a quoridor board is 9, 11 or 13 (Q26), not {size}",
        "bàn rào chắn là 9, 11 hoặc 13 (Q26), không phải {size}",
    ),
    (
        "options.boardSize",
        "the board is 15 or 19 (caro), or 9, 11 or 13 (quoridor)",
        "bàn cờ là 15 hoặc 19 (cờ caro), hoặc 9, 11 hoặc 13 (rào chắn)",
    ),
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
  lang vi   switch to Vietnamese (lang en: English)
  help      this list
  (empty)   redraw the board",
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
  lang en   chuyển sang tiếng Anh (lang vi: tiếng Việt)
  help      danh sách này
  (trống)   vẽ lại bàn cờ",
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
  lang vi   switch to Vietnamese (lang en: English)
  help      this list
  (empty)   redraw the board",
        "lệnh:
  3         rải hố số 3 của bạn (hố đánh số 1-6, hoặc 1-7 với congklak, từ đầu xa
            về phía kho của bạn)
  ?         liệt kê các hố được rải
  undo      đi lại lần rải cuối (khi chơi với máy, M11)
  resign    đầu hàng
  draw      xin hòa; accept / decline để trả lời
  quit      rời ván (đang chơi thì tính là đầu hàng)
  lang en   chuyển sang tiếng Anh (lang vi: tiếng Việt)
  help      danh sách này
  (trống)   vẽ lại bàn",
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
  lang vi   switch to Vietnamese (lang en: English)
  help      this list
  (empty)   redraw the board",
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
  lang en   chuyển sang tiếng Anh (lang vi: tiếng Việt)
  help      danh sách này
  (trống)   vẽ lại bàn",
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
  lang vi|en        switch the language (Vietnamese or English)
  help              this list
  (empty)           redraw the board",
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
  lang vi|en        đổi ngôn ngữ (tiếng Việt hoặc tiếng Anh)
  help              danh sách này
  (trống)           vẽ lại bàn",
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
  lang vi   switch to Vietnamese (lang en: English)
  help      this list
  (empty)   redraw the board
the board: rCm a red commander, bEn a blue engineer; ### face down; ( ) a camp
(its piece cannot be attacked), { } a headquarters; === and | | railways, --- and
| roads, ^ a mountain (no link), \\ / camp diagonals; [ ] the last action's point,
< > where it moved from",
        "lệnh (điểm: một cột a-e, rồi một hàng 1-12 từ dưới lên):
  c6        lật quân úp ở c6 (cũng được: flip c6)
  c6-c7     đi quân đã lật của bạn từ c6 tới c7, tấn công quân ở đó (cũng được:
            move c6-c7); trước khi định màu (J8) chỉ được lật quân
  ?         liệt kê các nước hợp lệ
  resign    đầu hàng
  draw      xin hòa; accept / decline để trả lời
  quit      rời ván (đang chơi thì tính là đầu hàng)
  lang en   chuyển sang tiếng Anh (lang vi: tiếng Việt)
  help      danh sách này
  (trống)   vẽ lại bàn
bàn cờ: rCm tư lệnh đỏ, bEn công binh xanh; ### quân úp; ( ) trại (quân trong
trại không bị tấn công), { } đại bản doanh; === và | | đường sắt, --- và
| đường bộ, ^ núi (không nối), \\ / đường chéo của trại; [ ] điểm của nước vừa đi,
< > nơi quân vừa rời đi",
    ),
    (
        "account.cannotListGames",
        "cannot list the games: {reason}",
        "không lấy được danh sách ván: {reason}",
    ),
    (
        "account.cannotReadGame",
        "cannot read game {game}: {reason}",
        "không đọc được ván {game}: {reason}",
    ),
    (
        "account.cannotReadProfile",
        "cannot read the profile: {reason}",
        "không đọc được hồ sơ: {reason}",
    ),
    (
        "history.none",
        "no finished games\n",
        "chưa có ván nào kết thúc\n",
    ),
    ("history.ended", "ended (UTC)", "kết thúc (UTC)"),
    ("history.game", "game", "trò chơi"),
    ("history.against", "against", "đối thủ"),
    ("history.result", "result", "kết quả"),
    ("history.id", "id", "mã ván"),
    (
        "history.casualPool",
        "{pool} (casual)",
        "{pool} (không tính điểm)",
    ),
    (
        "history.older",
        "older games: ludus history --page {token}\n",
        "ván cũ hơn: ludus history --page {token}\n",
    ),
    ("history.drawn", "drawn", "hòa"),
    ("history.cancelled", "cancelled", "đã hủy"),
    ("history.won", "won", "thắng"),
    ("history.lost", "lost", "thua"),
    ("history.finished", "finished", "đã kết thúc"),
    (
        "history.playerSeat",
        "{name} (seat {seat})",
        "{name} (ghế {seat})",
    ),
    (
        "history.gameHeader",
        "game {game}  {pool}\n{players}\nstarted {started}, ended {ended} (UTC)\n",
        "ván {game}  {pool}\n{players}\nbắt đầu {started}, kết thúc {ended} (UTC)\n",
    ),
    (
        "history.reason",
        "result: {reason}\n",
        "kết quả: {reason}\n",
    ),
    (
        "profile.header",
        "{name} ({username}), player {id}\nmember since {since}\ngames: {played} played, {won} won, {drawn} drawn\n",
        "{name} ({username}), mã người chơi {id}\nthành viên từ {since}\nsố ván: đã chơi {played}, thắng {won}, hòa {drawn}\n",
    ),
    (
        "profile.noRatings",
        "no rated games yet\n",
        "chưa có ván tính điểm nào\n",
    ),
    ("profile.pool", "rating pool", "bảng xếp hạng"),
    ("profile.rating", "rating", "điểm"),
    ("profile.games", "rated games", "ván tính điểm"),
    ("profile.rank", "rank", "hạng"),
    (
        "session.notKeyValue",
        "line {line} is not key=value",
        "dòng {line} không có dạng khóa=giá trị",
    ),
    (
        "session.unknownKey",
        "unknown key {key} on line {line}",
        "khóa lạ {key} ở dòng {line}",
    ),
    ("session.missingKey", "no {key}", "thiếu {key}"),
    (
        "session.noHome",
        "cannot tell where to keep the session: set HOME or LUDUS_CONFIG_DIR",
        "không biết lưu phiên ở đâu: hãy đặt HOME hoặc LUDUS_CONFIG_DIR",
    ),
    (
        "session.cannotRead",
        "cannot read {path}",
        "không đọc được {path}",
    ),
    (
        "session.damaged",
        "the session file {path} is damaged ({problem}): run `ludus login` again, or `ludus logout` to remove it",
        "tệp phiên {path} bị hỏng ({problem}): chạy lại `ludus login`, hoặc `ludus logout` để xóa tệp",
    ),
    (
        "session.cannotCreate",
        "cannot create {path}",
        "không tạo được {path}",
    ),
    (
        "session.cannotWrite",
        "cannot write {path}",
        "không ghi được {path}",
    ),
    (
        "session.cannotReplace",
        "cannot replace {path}",
        "không thay được {path}",
    ),
    (
        "session.cannotRemove",
        "cannot remove {path}",
        "không xóa được {path}",
    ),
    (
        "session.noAccount",
        "the server answered without the account",
        "máy chủ trả lời mà không kèm tài khoản",
    ),
    (
        "session.signedOutMeanwhile",
        "signed out in the meantime: run `ludus login` again",
        "đã đăng xuất trong lúc đó: chạy lại `ludus login`",
    ),
    (
        "session.ended",
        "the saved session of {username} has ended ({reason}): run `ludus login` again",
        "phiên đã lưu của {username} đã kết thúc ({reason}): chạy lại `ludus login`",
    ),
    (
        "session.cannotResume",
        "cannot resume the session of {username}: {reason}",
        "không tiếp tục được phiên của {username}: {reason}",
    ),
    (
        "session.notSaved",
        "the session was refreshed but the new token could not be saved: run `ludus login` again",
        "phiên đã được làm mới nhưng không lưu được mã mới: chạy lại `ludus login`",
    ),
    (
        "session.guestNeedsName",
        "--name is needed to play as a guest (or sign in first: `ludus login`)",
        "cần --name để chơi với tư cách khách (hoặc đăng nhập trước: `ludus login`)",
    ),
    (
        "session.removedDamaged",
        "removed the damaged session file; the server was not told ({error}), so a session it held expires on its own",
        "đã xóa tệp phiên bị hỏng; máy chủ chưa được báo ({error}), nên phiên nó còn giữ sẽ tự hết hạn",
    ),
    (
        "session.removedNotTold",
        "removed the saved session of {username}, but the server could not end it ({error}); it expires on its own",
        "đã xóa phiên đã lưu của {username}, nhưng máy chủ không kết thúc được phiên ({error}); phiên sẽ tự hết hạn",
    ),
    (
        "connect.badAddress",
        "bad server address {server}",
        "địa chỉ máy chủ không hợp lệ {server}",
    ),
    (
        "connect.unreachable",
        "cannot reach the server at {server}",
        "không kết nối được máy chủ {server}",
    ),
    (
        "connect.badToken",
        "the server sent a token that cannot go in a header",
        "máy chủ gửi mã không đặt được vào tiêu đề yêu cầu",
    ),
    (
        "connect.signInFailed",
        "sign-in failed: {reason}",
        "đăng nhập thất bại: {reason}",
    ),
    ("feed.game", "game {game}", "ván {game}"),
    ("feed.room", "room {code}", "phòng {code}"),
    (
        "feed.openFailed",
        "the task opening the event stream failed",
        "tác vụ mở luồng sự kiện bị lỗi",
    ),
    (
        "feed.cannotFollow",
        "cannot follow {feed}: {reason}",
        "không theo dõi được {feed}: {reason}",
    ),
    (
        "feed.failed",
        "the event stream of {feed} failed: {reason}",
        "luồng sự kiện của {feed} bị lỗi: {reason}",
    ),
    (
        "feed.lost",
        "lost the connection to the {feed}",
        "mất kết nối với {feed}",
    ),
    (
        "feed.resuming",
        "connection lost, resuming after event #{seq}",
        "mất kết nối, đang nối lại từ sau sự kiện #{seq}",
    ),
    (
        "watch.listLine",
        "  {game}  {name}  {players}  seq {seq}\n",
        "  {game}  {name}  {players}  nước thứ {seq}\n",
    ),
    (
        "render.badSide",
        "(the server sent a board of side {side}; cannot draw it)",
        "(máy chủ gửi bàn cờ cạnh {side}; không vẽ được)",
    ),
    (
        "render.badCells",
        "(the server sent {cells} cells for a {side}x{side} board)",
        "(máy chủ gửi {cells} ô cho bàn {side}x{side})",
    ),
    ("backgammon.white", "white", "trắng"),
    ("backgammon.black", "black", "đen"),
    (
        "backgammon.badPoints",
        "(the server sent {points} backgammon points; a board has 24)\n",
        "(máy chủ gửi {points} điểm backgammon; bàn cờ có 24 điểm)\n",
    ),
    (
        "backgammon.side",
        "{who}: bar {bar}, off {off}, {pips} pips",
        "{who}: thanh giữa {bar}, đã ra {off}, {pips} pip",
    ),
    ("backgammon.notRolled", "not rolled", "chưa đổ"),
    (
        "backgammon.cubeOwned",
        "{value}, owned by {who}",
        "{value}, thuộc {who}",
    ),
    (
        "backgammon.cubeMiddle",
        "{value}, in the middle",
        "{value}, ở giữa",
    ),
    (
        "backgammon.onRoll",
        "{colour} on roll, dice {dice}; cube {cube}",
        "lượt {colour}, xúc xắc {dice}; khối nhân đôi {cube}",
    ),
    ("backgammon.mayDouble", "; may double", "; được gấp đôi"),
    (
        "backgammon.matchScore",
        "match to {length}: white {white}, black {black}",
        "trận {length} điểm: trắng {white}, đen {black}",
    ),
    (
        "backgammon.crawford",
        " (Crawford game: no cube)",
        " (ván Crawford: không dùng khối nhân đôi)",
    ),
    (
        "backgammon.doublesTo",
        "{who} doubles to {value}: take or drop",
        "{who} gấp đôi lên {value}: take (nhận) hoặc drop (bỏ)",
    ),
    (
        "backgammon.beaversTo",
        "{who} beavers to {value}: take or drop",
        "{who} gấp đôi lại (beaver) lên {value}: take (nhận) hoặc drop (bỏ)",
    ),
    (
        "backgammon.orBeaver",
        " (or beaver)",
        " (hoặc beaver để gấp đôi lại)",
    ),
    ("backgammon.resignGammon", "a gammon", "một gammon"),
    (
        "backgammon.resignBackgammon",
        "a backgammon",
        "một backgammon",
    ),
    ("backgammon.resignSingle", "a single game", "một ván đơn"),
    (
        "backgammon.resignOffer",
        "{who} offers to resign {level} ({points} points): accept or reject",
        "{who} xin thua {level} ({points} điểm): accept (chấp nhận) hoặc reject (từ chối)",
    ),
    ("backgammon.noPlay", "no play", "không đi được"),
    (
        "backgammon.last",
        "last: {who} rolled {dice} and played {played}",
        "vừa rồi: {who} đổ {dice} và đi {played}",
    ),
    (
        "backgammon.automatic",
        " (played by the server: the clock ran out)",
        " (máy chủ đi thay: hết giờ)",
    ),
    ("junqi.red", "red", "đỏ"),
    ("junqi.blue", "blue", "xanh"),
    ("junqi.commander", "commander", "Tư lệnh"),
    ("junqi.corps", "corps commander", "Quân đoàn"),
    ("junqi.division", "division commander", "Sư đoàn"),
    ("junqi.brigade", "brigade commander", "Lữ đoàn"),
    ("junqi.regiment", "regiment commander", "Trung đoàn"),
    ("junqi.battalion", "battalion commander", "Tiểu đoàn"),
    ("junqi.company", "company commander", "Đại đội"),
    ("junqi.platoon", "platoon commander", "Trung đội"),
    ("junqi.engineer", "engineer", "Công binh"),
    ("junqi.mine", "mine", "Mìn"),
    ("junqi.bomb", "bomb", "Bom"),
    ("junqi.flag", "flag", "Quân kỳ"),
    ("junqi.piece", "piece", "quân"),
    ("junqi.colouredPiece", "{colour} {rank}", "{rank} {colour}"),
    ("junqi.aPiece", "a piece", "một quân"),
    (
        "junqi.badPoints",
        "(the server sent {points} junqi points; a board has {expected})\n",
        "(máy chủ gửi {points} điểm cờ quân lật; bàn cờ có {expected} điểm)\n",
    ),
    (
        "junqi.symbolLegend",
        "### face down  ( ) camp  { } HQ  === | | railway  --- | road  ^ mountain  [ ] < > last",
        "### quân úp  ( ) trại  { } đại bản doanh  === | | đường sắt  --- | đường bộ  ^ núi  [ ] < > nước vừa đi",
    ),
    (
        "junqi.rankLegend",
        "Cm commander  Co corps cmdr  Dv division  Br brigade  Rg regiment  Bn battalion\nCy company  Pl platoon  En engineer  Mi mine  Bo bomb  Fl flag   r red  b blue",
        "Cm Tư lệnh  Co Quân đoàn  Dv Sư đoàn  Br Lữ đoàn  Rg Trung đoàn  Bn Tiểu đoàn\nCy Đại đội  Pl Trung đội  En Công binh  Mi Mìn  Bo Bom  Fl Quân kỳ   r đỏ  b xanh",
    ),
    (
        "junqi.counts",
        "{ply} actions so far; {quiet} in a row without a flip or combat (a draw at {limit}, J17)",
        "đã đi {ply} nước; {quiet} nước liên tiếp không lật quân cũng không giao chiến (hòa khi tới {limit}, J17)",
    ),
    (
        "junqi.autoplayYou",
        "autoplay: the server is playing for you (J19): act before it does to take over",
        "tự động chơi: máy chủ đang đi thay bạn (J19): hãy đi trước nó để chơi tiếp",
    ),
    (
        "junqi.autoplayOther",
        "autoplay: the server is playing for {who} (J19) until they act again",
        "tự động chơi: máy chủ đang đi thay {who} (J19) cho tới khi người đó đi lại",
    ),
    (
        "junqi.seatColour",
        "{colour} {name} (seat {seat})",
        "{colour} {name} (ghế {seat})",
    ),
    (
        "junqi.youPlay",
        " — you play {colour}",
        " — bạn cầm quân {colour}",
    ),
    (
        "junqi.colours",
        "colours: {first}, {second}{you}\n",
        "màu quân: {first}, {second}{you}\n",
    ),
    ("junqi.nothingYet", "nothing yet", "chưa lật"),
    (
        "junqi.howColoursSettle",
        "\nyou take the colour you flip twice running, your opponent the other",
        "\nai lật ra cùng một màu hai lần liên tiếp thì cầm màu đó, đối phương cầm màu còn lại",
    ),
    (
        "junqi.unsettled",
        "colours: not settled yet (J8); last flips: {flips}{you}\n",
        "màu quân: chưa định màu (J8); lần lật gần nhất: {flips}{you}\n",
    ),
    ("junqi.pieces", "pieces", "quân"),
    ("junqi.total", "total", "tổng"),
    ("junqi.faceDownOf", "{colour} face down", "{colour} còn úp"),
    ("junqi.removedOf", "{colour} removed", "{colour} đã mất"),
    (
        "junqi.automatic",
        " (played by the server, J19)",
        " (máy chủ đi thay, J19)",
    ),
    (
        "junqi.last",
        "last: {who} {what}{auto}\n",
        "vừa rồi: {who} {what}{auto}\n",
    ),
    (
        "junqi.flipped",
        "flipped {point}: {piece}",
        "lật {point}: {piece}",
    ),
    (
        "junqi.took",
        "attacked {move}: {piece} took {defender}",
        "tấn công {move}: {piece} ăn {defender}",
    ),
    (
        "junqi.bothRemoved",
        "attacked {move}: {piece} and {defender} both removed",
        "tấn công {move}: {piece} và {defender} cùng chết",
    ),
    ("junqi.moved", "moved {piece} {move}", "đi {piece} {move}"),
    (
        "mancala.badSides",
        "(the server sent {sides} mancala sides; a board has 2)\n",
        "(máy chủ gửi {sides} phía bàn mancala; bàn có 2 phía)\n",
    ),
    (
        "mancala.badPits",
        "(the server sent {first} and {second} pits; cannot draw the board)\n",
        "(máy chủ gửi {first} và {second} hố; không vẽ được bàn)\n",
    ),
    (
        "mancala.stores",
        "stores: {bottom} {bottomStore}, {top} {topStore}   ({rules}; {sows} sows so far of {limit})",
        "kho: {bottom} {bottomStore}, {top} {topStore}   ({rules}; đã rải {sows} trên tối đa {limit} lần)",
    ),
    (
        "mancala.congklakClockwise",
        "congklak, clockwise",
        "congklak, theo chiều kim đồng hồ",
    ),
    (
        "mancala.kalahCounterclockwise",
        "kalah, counterclockwise",
        "kalah, ngược chiều kim đồng hồ",
    ),
    (
        "mancala.sowsAgain",
        "{who} sows again (M5)",
        "{who} được rải thêm lượt (M5)",
    ),
    (
        "mancala.maySow",
        "{who} may sow pits {pits}",
        "{who} được rải các hố {pits}",
    ),
    (
        "mancala.lastSow",
        "last: {who} sowed pit {pit}",
        "vừa rồi: {who} rải hố {pit}",
    ),
    (
        "mancala.oneRelay",
        " with {relays} relay",
        " với {relays} lần rải tiếp",
    ),
    (
        "mancala.relays",
        " with {relays} relays",
        " với {relays} lần rải tiếp",
    ),
    (
        "mancala.lastInStore",
        "; the last seed ended in the store",
        "; hạt cuối vào kho",
    ),
    (
        "mancala.captured",
        "; captured {total} (the last seed and {opposite} opposite)",
        "; ăn {total} hạt (hạt cuối và {opposite} hạt ở hố đối diện)",
    ),
    (
        "mancala.emptyFacingEmpty",
        "; the last seed stays in an empty pit facing an empty pit",
        "; hạt cuối nằm lại ở hố trống đối diện một hố trống",
    ),
    (
        "mancala.swept",
        "; game over: the seeds left went to the stores ({first} {a}, {second} {b})",
        "; hết ván: các hạt còn lại vào kho ({first} {a}, {second} {b})",
    ),
    ("quoridor.red", "red", "đỏ"),
    ("quoridor.yellow", "yellow", "vàng"),
    ("quoridor.blue", "blue", "xanh dương"),
    ("quoridor.green", "green", "xanh lá"),
    ("quoridor.purple", "purple", "tím"),
    ("quoridor.orange", "orange", "cam"),
    ("quoridor.cyan", "cyan", "xanh ngọc"),
    ("quoridor.pink", "pink", "hồng"),
    ("quoridor.pawn", "pawn", "quân"),
    (
        "quoridor.badSize",
        "(the server sent a quoridor board of size {size}; cannot draw it)\n",
        "(máy chủ gửi bàn Rào chắn cỡ {size}; không vẽ được)\n",
    ),
    ("quoridor.leftGame", ": left the game", ": đã rời ván"),
    (
        "quoridor.wallsLeft",
        ": {walls} walls left",
        ": còn {walls} tường",
    ),
    (
        "quoridor.stepsTo",
        ", {steps} steps to {goal}",
        ", còn {steps} bước tới {goal}",
    ),
    ("quoridor.movedFrom", "moved {from}-{to}", "đi {from}-{to}"),
    ("quoridor.movedTo", "moved to {to}", "đi tới {to}"),
    (
        "quoridor.placedWall",
        "placed wall {wall}",
        "đặt tường {wall}",
    ),
    ("quoridor.passed", "passed", "bỏ lượt"),
    ("quoridor.acted", "acted", "đã đi"),
    (
        "quoridor.last",
        "last: {who} ({name}) {what}{auto}",
        "vừa rồi: {who} ({name}) {what}{auto}",
    ),
    (
        "quoridor.counts",
        "{ply} actions so far; a draw after {limit} moves each (Q18)",
        "đã đi {ply} nước; hòa khi mỗi bên đi đủ {limit} nước (Q18)",
    ),
    ("quoridor.topEdge", "the top edge", "mép trên"),
    ("quoridor.bottomEdge", "the bottom edge", "mép dưới"),
    ("quoridor.leftEdge", "the left edge", "mép trái"),
    ("quoridor.rightEdge", "the right edge", "mép phải"),
    ("quoridor.center", "the center", "ô trung tâm"),
    ("quoridor.itsGoal", "its goal", "đích"),
    (
        "render.noPosition",
        "(no position yet)\n",
        "(chưa có thế cờ)\n",
    ),
    (
        "render.cannotDraw",
        "(this client cannot draw this game)\n",
        "(ứng dụng này không vẽ được trò chơi này)\n",
    ),
    (
        "options.notForCaro",
        "Caro does not take --rule-set, --turn-seconds and the backgammon flags",
        "Cờ caro không nhận --rule-set, --turn-seconds và các cờ của backgammon",
    ),
    (
        "options.notForMancala",
        "Mancala does not take --size, --turn-seconds, --free, --exactly-five and the backgammon flags",
        "Mancala không nhận --size, --turn-seconds, --free, --exactly-five và các cờ của backgammon",
    ),
    (
        "options.notForQuoridor",
        "Quoridor does not take --free, --exactly-five, --rule-set and the backgammon flags",
        "Rào chắn không nhận --free, --exactly-five, --rule-set và các cờ của backgammon",
    ),
    (
        "options.notForBackgammon",
        "Backgammon does not take --size, --free, --exactly-five and --rule-set",
        "Backgammon không nhận --size, --free, --exactly-five và --rule-set",
    ),
    (
        "options.notForJunqi",
        "Junqi does not take game options: flip junqi has none",
        "Cờ quân lật không có tùy chọn trò chơi nào",
    ),
    (
        "room.help",
        "room commands:
  seat              take the next free seat (seats fill in order)
  seat red          in a Quoridor team room, sit with red (or yellow, Q23)
  unseat            give your seat up and watch
  ready / unready   ready (or not) for the next game
  say hello         a chat line (also: a line starting with \" or ')
  watch [N]         follow the room's game N (1 by default) as a spectator; back returns
  room              the room: settings, members, seats (also: an empty line)
  leave             leave the room (resigns a game you play in it, C14)
  lang vi|en        switch the language (Vietnamese or English)
  help              this list
the host also:
  start             start the next game (or the tournament's next round)
  pause / resume    the countdown to the next game (Q29)
  set OPTION VALUE  change the settings between games; set help lists the options
  kick NAME         remove a member, who cannot come back
  host NAME         hand the host role over
  computer LEVEL    seat a computer player: easy, normal or hard
when a game starts, a seated player plays it here and comes back to the room after it;
spectators follow it and come back the same way",
        "lệnh trong phòng:
  seat              ngồi vào ghế trống tiếp theo (ghế được lấp theo thứ tự)
  seat red          trong phòng Rào chắn chia đội, ngồi với đội đỏ (hoặc yellow: vàng, Q23)
  unseat            rời ghế và xem
  ready / unready   sẵn sàng (hoặc chưa) cho ván tiếp theo
  say hello         gửi một dòng trò chuyện (cũng được: dòng bắt đầu bằng \" hoặc ')
  watch [N]         xem ván thứ N của phòng (mặc định 1) với tư cách khán giả; back để quay lại
  room              xem phòng: cài đặt, thành viên, ghế (cũng được: một dòng trống)
  leave             rời phòng (đang chơi ván nào trong phòng thì tính là đầu hàng, C14)
  lang vi|en        đổi ngôn ngữ (tiếng Việt hoặc tiếng Anh)
  help              danh sách này
chủ phòng còn có:
  start             bắt đầu ván tiếp theo (hoặc vòng tiếp theo của giải đấu)
  pause / resume    tạm dừng / tiếp tục đếm ngược tới ván sau (Q29)
  set OPTION VALUE  đổi cài đặt giữa các ván; set help liệt kê các tùy chọn
  kick NAME         mời một thành viên ra khỏi phòng, người đó không vào lại được
  host NAME         trao quyền chủ phòng
  computer LEVEL    thêm người chơi máy: easy (dễ), normal (vừa) hoặc hard (khó)
khi ván bắt đầu, người đang ngồi ghế chơi ngay tại đây và quay lại phòng sau ván;
khán giả xem ván và cũng quay lại phòng như vậy",
    ),
    (
        "room.setHelp",
        "set options (the server checks the values and names the rule):
  set game caro|mancala|quoridor|backgammon|junqi   switch game (its default options)
  set clock SECONDS      seconds per turn; 0 is the game's default (untimed in Caro, C12)
  set public on|off      listed in the lobby (`ludus room list`)
  set rated on|off       rated when everyone at the table has an account
  set spectator-chat on|off
  caro:       set size 15|19, set free on|off, set exactly-five on|off,
              set first host|guest|rps (who moves first in the first game, C10)
  quoridor:   set size 9|11|13, set players 2-8, set mode ffa|teams|tournament,
              set walls 0|1|3|5|7|10|15|20 (0: by size and players), set goal opposite|center,
              set auto-start on|off (the next game 30 s after one ends, Q29)
  mancala:    set rule-set kalah|congklak
  backgammon: set match-length 0|1|3|5|7|11|15|21 (0: a money game), set jacoby on|off,
              set beavers on|off, set automatic-doubles on|off",
        "tùy chọn của set (máy chủ kiểm tra giá trị và nêu luật):
  set game caro|mancala|quoridor|backgammon|junqi   đổi trò chơi (với tùy chọn mặc định của nó)
  set clock SECONDS      số giây mỗi lượt; 0 là mặc định của trò chơi (cờ caro không giới hạn, C12)
  set public on|off      hiện trong sảnh (`ludus room list`)
  set rated on|off       tính điểm khi mọi người trong bàn đều có tài khoản
  set spectator-chat on|off
  cờ caro:    set size 15|19, set free on|off, set exactly-five on|off,
              set first host|guest|rps (ai đi trước ở ván đầu: chủ phòng, khách hay oẳn tù tì, C10)
  rào chắn:   set size 9|11|13, set players 2-8, set mode ffa|teams|tournament,
              set walls 0|1|3|5|7|10|15|20 (0: theo cỡ bàn và số người), set goal opposite|center,
              set auto-start on|off (ván sau tự bắt đầu 30 giây sau khi một ván kết thúc, Q29)
  mancala:    set rule-set kalah|congklak
  backgammon: set match-length 0|1|3|5|7|11|15|21 (0: ván lẻ money), set jacoby on|off,
              set beavers on|off, set automatic-doubles on|off",
    ),
    (
        "room.seatTakes",
        "seat takes a seat number, red or yellow, not {text}",
        "seat cần số ghế, red (đỏ) hoặc yellow (vàng), không phải {text}",
    ),
    (
        "room.watchTakes",
        "watch takes a game number, not {text}",
        "watch cần số thứ tự ván, không phải {text}",
    ),
    (
        "room.setNeedsValue",
        "set {option} needs a value: {help}",
        "set {option} cần một giá trị: {help}",
    ),
    (
        "room.needsName",
        "{command} needs a member's name",
        "{command} cần tên một thành viên",
    ),
    (
        "room.sayWhat",
        "say what? (say hello)",
        "nói gì? (say hello)",
    ),
    (
        "room.badCode",
        "a room code is 6 letters and digits, like K7M 4QP, not {text}",
        "mã phòng gồm 6 chữ cái và chữ số, như K7M 4QP, không phải {text}",
    ),
    (
        "room.takesNumber",
        "{option} takes a number, not {value}",
        "{option} cần một số, không phải {value}",
    ),
    (
        "room.onOrOff",
        "{option} is on or off, not {value}",
        "{option} là on (bật) hoặc off (tắt), không phải {value}",
    ),
    (
        "room.notAnOptionOf",
        "{option} is not an option of {game}: {help}",
        "{option} không phải tùy chọn của {game}: {help}",
    ),
    ("room.thisGame", "this game", "trò chơi này"),
    (
        "room.theGames",
        "the games are caro, mancala, quoridor, backgammon and junqi, not {value}",
        "các trò chơi là caro (cờ caro), mancala, quoridor (rào chắn), backgammon và junqi (cờ quân lật), không phải {value}",
    ),
    (
        "room.goalIs",
        "goal is opposite or center, not {value}",
        "goal là opposite (mép đối diện) hoặc center (ô trung tâm), không phải {value}",
    ),
    (
        "room.ruleSetIs",
        "rule-set is kalah or congklak, not {value}",
        "rule-set là kalah hoặc congklak, không phải {value}",
    ),
    (
        "room.unknownOption",
        "unknown option {option}: {help}",
        "tùy chọn lạ {option}: {help}",
    ),
    (
        "room.firstIs",
        "who moves first is host, guest or rps (rock-paper-scissors, C10), not {value}",
        "người đi trước là host (chủ phòng), guest (khách) hoặc rps (oẳn tù tì, C10), không phải {value}",
    ),
    (
        "room.modeIs",
        "the mode is ffa (Q22), teams (Q23) or tournament (Q24), not {value}",
        "chế độ là ffa (mỗi người một phe, Q22), teams (đấu đội, Q23) hoặc tournament (giải đấu, Q24), không phải {value}",
    ),
    ("game.caro", "Caro", "Cờ caro"),
    ("game.mancala", "Mancala", "Mancala"),
    ("game.quoridor", "Quoridor", "Rào chắn"),
    ("game.backgammon", "Backgammon", "Backgammon"),
    ("game.junqi", "Flip Junqi", "Cờ quân lật"),
    ("room.untimed", "untimed", "không giới hạn thời gian"),
    (
        "room.minutesAMove",
        "{minutes} min a move",
        "{minutes} phút mỗi nước",
    ),
    (
        "room.secondsAMove",
        "{seconds} s a move",
        "{seconds} giây mỗi nước",
    ),
    ("room.freeRules", "free rules", "luật tự do"),
    ("room.exactlyFive", "exactly five", "đúng năm quân"),
    (
        "room.teams",
        "red vs yellow, {side} a side (Q23)",
        "đỏ đấu vàng, mỗi đội {side} người (Q23)",
    ),
    (
        "room.knockout",
        "knockout of {players} (Q24)",
        "giải đấu {players} người (Q24)",
    ),
    ("room.players", "{players} players", "{players} người chơi"),
    ("room.wallsBySize", "walls by size", "số tường tự động"),
    ("room.walls", "{walls} walls", "{walls} tường"),
    (
        "room.raceToCenter",
        "race to the center",
        "đích là ô trung tâm",
    ),
    (
        "room.automaticDoubles",
        "automatic doubles",
        "tự động gấp đôi",
    ),
    ("room.beavers", "beavers", "beaver (gấp đôi lại)"),
    ("room.jacoby", "Jacoby", "luật Jacoby"),
    (
        "room.hostFirst",
        "host first (C10)",
        "chủ phòng đi trước (C10)",
    ),
    (
        "room.guestFirst",
        "guest first (C10)",
        "khách đi trước (C10)",
    ),
    (
        "room.rpsFirst",
        "rock-paper-scissors first (C10)",
        "oẳn tù tì chọn người đi trước (C10)",
    ),
    ("room.public", "public", "công khai"),
    ("room.private", "private", "riêng tư"),
    ("room.rated", "rated", "tính điểm"),
    ("room.casual", "casual", "không tính điểm"),
    (
        "room.spectatorsSilent",
        "spectators do not chat",
        "khán giả không trò chuyện",
    ),
    (
        "room.phaseCountdown",
        "the next game starts in {seconds} s (Q29)",
        "ván sau bắt đầu sau {seconds} giây (Q29)",
    ),
    (
        "room.phasePaused",
        "countdown paused with {seconds} s left",
        "đếm ngược tạm dừng, còn {seconds} giây",
    ),
    ("room.phasePlaying", "playing", "đang chơi"),
    (
        "room.phaseWaiting",
        "waiting for the host to start",
        "chờ chủ phòng bắt đầu",
    ),
    (
        "room.summaryHeader",
        "room {code} · invite: {link}",
        "phòng {code} · liên kết mời: {link}",
    ),
    (
        "room.seatsTaken",
        "{seated} of {seats} seats taken",
        "đã ngồi {seated}/{seats} ghế",
    ),
    ("room.you", "you", "bạn"),
    ("room.youAre", "you are", "bạn"),
    ("room.isSubject", "{who} is", "{who}"),
    ("room.host", "host", "chủ phòng"),
    ("room.computer", "computer, {level}", "máy, {level}"),
    ("room.guest", "guest", "khách"),
    ("room.andReady", ", ready", ", sẵn sàng"),
    ("room.watching", "watching", "đang xem"),
    (
        "room.seatedWith",
        "seated with {team}{ready}",
        "ngồi đội {team}{ready}",
    ),
    ("room.seated", "seated{ready}", "đã ngồi{ready}"),
    (
        "room.liveGame",
        "  game {n}: {players} ({game})",
        "  ván {n}: {players} ({game})",
    ),
    ("room.opened", "room {code} opened", "phòng {code} đã mở"),
    ("room.joined", "{who} joined", "{who} đã vào phòng"),
    (
        "room.joinedToWatch",
        "{who} joined to watch",
        "{who} đã vào xem",
    ),
    ("room.left", "{who} left", "{who} đã rời phòng"),
    (
        "room.kickedYou",
        "the host removed you from the room",
        "chủ phòng đã mời bạn ra khỏi phòng",
    ),
    (
        "room.kicked",
        "the host removed {who}",
        "chủ phòng đã mời {who} ra khỏi phòng",
    ),
    ("room.withTeam", " with {team}", " vào đội {team}"),
    (
        "room.satDown",
        "{who} sat down{team} ({taken})",
        "{who} đã ngồi{team} ({taken})",
    ),
    (
        "room.unseated",
        "{who} gave the seat up and watches",
        "{who} đã rời ghế để xem",
    ),
    ("room.isReady", "{are} ready", "{are} đã sẵn sàng"),
    ("room.notReady", "{are} not ready", "{are} chưa sẵn sàng"),
    (
        "room.settingsChanged",
        "settings: {settings} (players get ready again)",
        "cài đặt: {settings} (người chơi cần sẵn sàng lại)",
    ),
    (
        "room.hostNow",
        "{are} the host now",
        "{are} giờ là chủ phòng",
    ),
    (
        "room.rockPaperScissors",
        "C10 rock-paper-scissors, {pair}: {throws} — {first} moves first",
        "C10 oẳn tù tì, {pair}: {throws} — {first} đi trước",
    ),
    (
        "room.gameStarted",
        "game {game} started{players}",
        "ván {game} bắt đầu{players}",
    ),
    (
        "room.noWinner",
        "no winner (a draw, or cancelled)",
        "không ai thắng (hòa, hoặc ván bị hủy)",
    ),
    ("room.won", "{who} won", "{who} thắng"),
    (
        "room.gameFinished",
        "game {game} finished: {result}",
        "ván {game} kết thúc: {result}",
    ),
    (
        "room.countdownStarted",
        "the next game starts in {seconds} s (Q29; the host can pause)",
        "ván sau bắt đầu sau {seconds} giây (Q29; chủ phòng có thể tạm dừng)",
    ),
    (
        "room.countdownPaused",
        "countdown paused with {seconds} s left (resume to go on)",
        "đếm ngược tạm dừng, còn {seconds} giây (resume để tiếp tục)",
    ),
    (
        "room.countdownStopped",
        "the countdown stopped: {reason}",
        "đếm ngược đã dừng: {reason}",
    ),
    (
        "room.round",
        "tournament round {round} (Q24)",
        "vòng {round} của giải đấu (Q24)",
    ),
    (
        "room.roundBye",
        "tournament round {round} (Q24): {who} sits this round out",
        "vòng {round} của giải đấu (Q24): {who} được miễn đấu vòng này",
    ),
    (
        "room.champion",
        "{are} the champion (Q35: +10 points)",
        "{are} là nhà vô địch (Q35: +10 điểm)",
    ),
    (
        "room.scoreboard",
        "scoreboard ({game}):",
        "bảng điểm ({game}):",
    ),
    (
        "room.score",
        "\n  {name}: {played} played, {won} won, {drawn} drawn, {points} points",
        "\n  {name}: chơi {played}, thắng {won}, hòa {drawn}, {points} điểm",
    ),
    (
        "room.noPublicRooms",
        "no public rooms right now: `ludus room create --public` opens one\n",
        "hiện không có phòng công khai nào: `ludus room create --public` để mở một phòng\n",
    ),
    (
        "room.publicRooms",
        "public rooms (newest first; join with `ludus room join CODE`):\n",
        "phòng công khai (mới nhất trước; vào bằng `ludus room join CODE`):\n",
    ),
    (
        "room.listed",
        "  {code}  {settings}  host {host}  {taken}  {phase}",
        "  {code}  {settings}  chủ phòng {host}  {taken}  {phase}",
    ),
    (
        "room.guestNeedsName",
        "--guest needs --name",
        "--guest cần --name",
    ),
    (
        "room.cannotList",
        "cannot list rooms: {reason}",
        "không lấy được danh sách phòng: {reason}",
    ),
    (
        "room.needsAccount",
        "creating a room needs an account (Ping44) signed in on this server: sign in with `ludus login USERNAME` or create one with `ludus register USERNAME`; guests join rooms by code",
        "tạo phòng cần một tài khoản (Ping44) đã đăng nhập trên máy chủ này: đăng nhập bằng `ludus login USERNAME` hoặc tạo tài khoản bằng `ludus register USERNAME`; khách vào phòng bằng mã",
    ),
    (
        "room.cannotCreate",
        "cannot create the room: {reason}",
        "không tạo được phòng: {reason}",
    ),
    (
        "room.created",
        "room {shown} created: you are the host\ninvite: {link} (others type `ludus room join {code}`)",
        "đã tạo phòng {shown}: bạn là chủ phòng\nliên kết mời: {link} (người khác gõ `ludus room join {code}`)",
    ),
    (
        "room.cannotJoin",
        "cannot join room {code}: {reason}",
        "không vào được phòng {code}: {reason}",
    ),
    (
        "room.joinedAsSpectator",
        "joined room {code} as a spectator",
        "đã vào phòng {code} với tư cách khán giả",
    ),
    (
        "room.joinedAsPlayer",
        "joined room {code} as a player",
        "đã vào phòng {code} với tư cách người chơi",
    ),
    (
        "room.noRoom",
        "the server sent no room",
        "máy chủ không gửi phòng nào",
    ),
    (
        "room.typeHelp",
        "type help for the room commands",
        "gõ help để xem các lệnh trong phòng",
    ),
    (
        "room.streamStopped",
        "the room's event stream stopped",
        "luồng sự kiện của phòng đã dừng",
    ),
    (
        "room.inputClosed",
        "input closed: following the room without commands (ctrl-c leaves)",
        "đã đóng đầu vào: theo dõi phòng mà không gõ lệnh (ctrl-c để rời)",
    ),
    (
        "room.watchingGame",
        "watching game {game}: type back to return to the room (room commands work too)",
        "đang xem ván {game}: gõ back để quay lại phòng (các lệnh trong phòng vẫn dùng được)",
    ),
    (
        "room.backInRoom",
        "back in room {code}: type help for the commands, leave to leave",
        "đã quay lại phòng {code}: gõ help để xem các lệnh, leave để rời phòng",
    ),
    (
        "room.nobodyCalled",
        "nobody called {name} is in the room",
        "trong phòng không có ai tên {name}",
    ),
    (
        "room.manyCalled",
        "{count} members are called {name}: use the player id ({ids})",
        "có {count} thành viên tên {name}: hãy dùng mã người chơi ({ids})",
    ),
    (
        "room.youLeft",
        "you left room {code}",
        "bạn đã rời phòng {code}",
    ),
    (
        "room.leaveFailed",
        "leaving the room failed: {reason} (you will leave once away a minute)",
        "rời phòng thất bại: {reason} (bạn sẽ tự rời phòng sau một phút vắng mặt)",
    ),
    (
        "room.noGameNow",
        "no game of this room is being played now (watch N: the Nth)",
        "phòng hiện không có ván nào đang chơi (watch N: ván thứ N)",
    ),
    (
        "room.seatsInOrder",
        "seats fill in order: the next free one is seat {next} (type seat)",
        "ghế được lấp theo thứ tự: ghế trống tiếp theo là ghế {next} (gõ seat)",
    ),
    (
        "room.watchHint",
        "  type watch to follow it, or `ludus watch {game}`",
        "  gõ watch để xem, hoặc `ludus watch {game}`",
    ),
    (
        "room.quoridorFlags",
        "{game} does not take --players, --mode, --walls, --goal or --no-auto-start (quoridor's)",
        "{game} không nhận --players, --mode, --walls, --goal hay --no-auto-start (của Rào chắn)",
    ),
    (
        "room.firstMoverFlag",
        "{game} does not take --first-mover (caro's, C10)",
        "{game} không nhận --first-mover (của cờ caro, C10)",
    ),
    (
        "lang.switched",
        "language: English (lang vi: tiếng Việt)",
        "ngôn ngữ: tiếng Việt (lang en: English)",
    ),
    (
        "lang.usage",
        "lang takes vi (Vietnamese) or en (English)",
        "lang nhận vi (tiếng Việt) hoặc en (tiếng Anh)",
    ),
    (
        "cli.lang",
        "The language of the client's text: en or vi (default: from LC_ALL, LC_MESSAGES or LANG)",
        "Ngôn ngữ hiển thị: en (tiếng Anh) hoặc vi (tiếng Việt) (mặc định: theo LC_ALL, LC_MESSAGES hoặc LANG)",
    ),
    ("cli.help", "Print help", "In trợ giúp"),
    ("cli.options", "Options", "Tùy chọn"),
    ("cli.arguments", "Arguments", "Đối số"),
    ("cli.commands", "Commands", "Lệnh"),
    (
        "cli.template",
        "{about-with-newline}\nUsage: {usage}\n\n{all-args}{after-help}",
        "{about-with-newline}\nCách dùng: {usage}\n\n{all-args}{after-help}",
    ),
    (
        "cli.play",
        "Sign in, quick-match and play a game (Caro by default) in the terminal.",
        "Đăng nhập, tìm trận nhanh và chơi một ván (mặc định cờ caro) trong cửa sổ dòng lệnh.",
    ),
    (
        "cli.watch",
        "Watch a live game as a spectator.",
        "Xem một ván đang diễn ra với tư cách khán giả.",
    ),
    (
        "cli.room",
        "Friend rooms: create one (an account), join one by its code, or list the public ones.",
        "Phòng chơi với bạn bè: tạo phòng (cần tài khoản), vào phòng bằng mã, hoặc xem các phòng công khai.",
    ),
    (
        "cli.register",
        "Create an account (the password is read without echo, or from standard input) and stay signed in.",
        "Tạo tài khoản (mật khẩu được nhập không hiện ra, hoặc đọc từ đầu vào chuẩn) và giữ đăng nhập.",
    ),
    (
        "cli.login",
        "Sign in; `play`, `watch`, `history` and `profile` then use the account.",
        "Đăng nhập; sau đó `play`, `watch`, `history` và `profile` dùng tài khoản này.",
    ),
    (
        "cli.logout",
        "Sign out and forget the saved session.",
        "Đăng xuất và xóa phiên đã lưu.",
    ),
    (
        "cli.history",
        "Your finished games, newest first (`--game ID` prints one game's moves).",
        "Các ván đã kết thúc của bạn, mới nhất trước (`--game ID` in nước đi của một ván).",
    ),
    (
        "cli.profile",
        "A player's profile: name, results, ratings.",
        "Hồ sơ người chơi: tên, thành tích, điểm xếp hạng.",
    ),
    (
        "cli.room.create",
        "Open a room (needs an account: `ludus login`), print its code and invite link, and stay in it",
        "Mở một phòng (cần tài khoản: `ludus login`), in mã phòng và liên kết mời, rồi ở lại trong phòng",
    ),
    (
        "cli.room.join",
        "Join a room by its code (`K7M 4QP`, any case, with or without the space, or the invite link `ludus://room/K7M4QP`) and stay in it",
        "Vào phòng bằng mã (`K7M 4QP`, chữ hoa hay thường, có hay không có dấu cách, hoặc liên kết mời `ludus://room/K7M4QP`) rồi ở lại trong phòng",
    ),
    (
        "cli.room.list",
        "The public rooms (the lobby)",
        "Các phòng công khai (sảnh)",
    ),
    (
        "cli.address",
        "The Gateway address (default: the saved session's, else the local server)",
        "Địa chỉ Gateway (mặc định: của phiên đã lưu, nếu không thì máy chủ trên máy này)",
    ),
    (
        "cli.room.server",
        "The Gateway address (default: the saved session's, else the local server)",
        "Địa chỉ Gateway (mặc định: của phiên đã lưu, nếu không thì máy chủ trên máy này)",
    ),
    (
        "cli.game",
        "The game to play",
        "Trò chơi: caro (cờ caro, mặc định), mancala, quoridor (rào chắn), backgammon hoặc junqi (cờ quân lật)",
    ),
    (
        "cli.size",
        "Board side: 15 (default) or 19 for Caro (C1); 9 (default), 11 or 13 for Quoridor (Q26)",
        "Cạnh bàn cờ: 15 (mặc định) hoặc 19 với cờ caro (C1); 9 (mặc định), 11 hoặc 13 với rào chắn (Q26)",
    ),
    (
        "cli.free",
        "Caro free rules: a five blocked at both ends also wins (turns the C5 blocked-ends rule off)",
        "Cờ caro luật tự do: năm quân bị chặn hai đầu vẫn thắng (tắt luật chặn hai đầu C5)",
    ),
    (
        "cli.exactly_five",
        "Caro: only a run of exactly five wins (C5 exactly-five rule on)",
        "Cờ caro: chỉ đúng năm quân liên tiếp mới thắng (bật luật đúng năm quân C5)",
    ),
    (
        "cli.rule_set",
        "Mancala: the rule set",
        "Mancala: bộ luật, kalah (mặc định) hoặc congklak",
    ),
    (
        "cli.turn_seconds",
        "Seconds per turn. Quick match: Quoridor 15 to 90 (Q28), Backgammon 30, 60, 90 or 120 (B20). A room also: Caro 0 (untimed), 30, 60 or 120 (C12), 0 untimed in Backgammon. Without it the server's default clock (in a Caro room: untimed)",
        "Số giây mỗi lượt. Trận nhanh: rào chắn 15 đến 90 (Q28), backgammon 30, 60, 90 hoặc 120 (B20). Trong phòng còn có: cờ caro 0 (không giới hạn), 30, 60 hoặc 120 (C12), backgammon 0 là không giới hạn. Không có thì dùng đồng hồ mặc định của máy chủ (phòng cờ caro: không giới hạn)",
    ),
    (
        "cli.automatic_doubles",
        "Backgammon: equal opening rolls double the stake (B17)",
        "Backgammon: lần đổ đầu ra hai số bằng nhau thì gấp đôi tiền cược (B17)",
    ),
    (
        "cli.beavers",
        "Backgammon: a doubled player may beaver (B18)",
        "Backgammon: người bị gấp đôi được gấp đôi lại (beaver, B18)",
    ),
    (
        "cli.jacoby",
        "Backgammon: the Jacoby rule (B19)",
        "Backgammon: luật Jacoby (B19)",
    ),
    (
        "cli.match_length",
        "Backgammon: play a match to this many points (1, 3, 5, 7, 11, 15 or 21; B22) instead of a money game",
        "Backgammon: chơi trận tới số điểm này (1, 3, 5, 7, 11, 15 hoặc 21; B22) thay vì ván lẻ (money)",
    ),
    (
        "cli.play.name",
        "Your display name as a guest (1 to 32 characters); not needed once signed in with `ludus login`, whose account plays (rated)",
        "Tên hiển thị khi chơi với tư cách khách (1 đến 32 ký tự); không cần khi đã đăng nhập bằng `ludus login`, lúc đó tài khoản sẽ chơi (tính điểm)",
    ),
    (
        "cli.play.guest",
        "Play as a guest (casual) even when signed in",
        "Chơi với tư cách khách (không tính điểm) dù đã đăng nhập",
    ),
    (
        "cli.play.computer",
        "Play against the computer at this level instead of quick-matching: easy, normal or hard (also the seeds' medium, beginner, expert). Starts at once, unrated; `undo` takes a move back in Caro (Easy, Medium) and Mancala",
        "Chơi với máy ở mức này thay vì tìm trận: easy (dễ), normal (vừa) hoặc hard (khó) (cũng nhận medium, beginner, expert). Bắt đầu ngay, không tính điểm; `undo` đi lại một nước trong cờ caro (Dễ, Vừa) và mancala",
    ),
    (
        "cli.watch.name",
        "The guest name to watch under when not signed in (or with `--guest`)",
        "Tên khách dùng để xem khi chưa đăng nhập (hoặc với `--guest`)",
    ),
    (
        "cli.watch.guest",
        "Watch as a guest even when signed in",
        "Xem với tư cách khách dù đã đăng nhập",
    ),
    (
        "cli.watch.game_id",
        "The game to watch; without it, the live games are listed and the newest is watched",
        "Ván muốn xem; không có thì liệt kê các ván đang diễn ra và xem ván mới nhất",
    ),
    (
        "cli.watch.from",
        "Start from the events after this seq (0 replays the whole game)",
        "Bắt đầu từ các sự kiện sau số thứ tự này (0 phát lại cả ván)",
    ),
    (
        "cli.room.name",
        "Your display name as a guest (join and list; not needed once signed in, and rooms are created by accounts)",
        "Tên hiển thị khi là khách (join và list; không cần khi đã đăng nhập, và phòng do tài khoản tạo)",
    ),
    (
        "cli.room.guest",
        "Join as a guest even when signed in (needs --name)",
        "Vào phòng với tư cách khách dù đã đăng nhập (cần --name)",
    ),
    (
        "cli.room.create.players",
        "Quoridor: seats at the table, 2 to 8 (Q4); teams need an even number, a tournament counts entrants",
        "Rào chắn: số ghế, 2 đến 8 (Q4); đấu đội cần số chẵn, giải đấu tính số người tham gia",
    ),
    (
        "cli.room.create.mode",
        "Quoridor: free-for-all (Q22), red against yellow (Q23) or a knockout (Q24)",
        "Rào chắn: ffa (mỗi người một phe, Q22), teams (đấu đội đỏ đấu vàng, Q23) hoặc tournament (giải đấu, Q24)",
    ),
    (
        "cli.room.create.walls",
        "Quoridor: walls per player, or per team (Q27): 1, 3, 5, 7, 10, 15 or 20 (default by size and players)",
        "Rào chắn: số tường mỗi người, hoặc mỗi đội (Q27): 1, 3, 5, 7, 10, 15 hoặc 20 (mặc định theo cỡ bàn và số người)",
    ),
    (
        "cli.room.create.goal",
        "Quoridor: race to the opposite edge (default) or the center (Q25)",
        "Rào chắn: đích là opposite (phía bên kia, mặc định) hoặc center (ô trung tâm, Q25)",
    ),
    (
        "cli.room.create.first_mover",
        "Caro: who moves first in the first game (C10); later games follow C11",
        "Cờ caro: ai đi trước ở ván đầu, host (chủ phòng), guest (khách) hoặc rps (oẳn tù tì) (C10); các ván sau theo C11",
    ),
    (
        "cli.room.create.public",
        "List the room in the lobby (`ludus room list`)",
        "Hiện phòng trong sảnh (`ludus room list`)",
    ),
    (
        "cli.room.create.rated",
        "Rate the room's games when everyone at the table has an account",
        "Tính điểm các ván của phòng khi mọi người trong bàn đều có tài khoản",
    ),
    (
        "cli.room.create.no_auto_start",
        "Quoridor: do not start the next game 30 s after one ends (Q29)",
        "Rào chắn: không tự bắt đầu ván sau 30 giây sau khi một ván kết thúc (Q29)",
    ),
    (
        "cli.room.create.no_spectator_chat",
        "Spectators may not chat",
        "Khán giả không được trò chuyện",
    ),
    (
        "cli.room.create.watch",
        "Host without a seat (only watch)",
        "Làm chủ phòng mà không ngồi ghế (chỉ xem)",
    ),
    (
        "cli.room.join.code",
        "The room's code: `K7M4QP`, `k7m 4qp` (quoted or not), or `ludus://room/K7M4QP`",
        "Mã phòng: `K7M4QP`, `k7m 4qp` (có ngoặc kép hay không), hoặc `ludus://room/K7M4QP`",
    ),
    (
        "cli.room.join.watch",
        "Join as a spectator (C16: up to 50)",
        "Vào với tư cách khán giả (C16: tối đa 50 người)",
    ),
    (
        "cli.room.join.team",
        "A Quoridor team room: the team to sit with (Q23)",
        "Phòng rào chắn chia đội: đội muốn ngồi cùng, red (đỏ) hoặc yellow (vàng) (Q23)",
    ),
    (
        "cli.register.username",
        "The username: 3 to 24 of a-z, 0-9 and _",
        "Tên đăng nhập: 3 đến 24 ký tự a-z, 0-9 và _",
    ),
    (
        "cli.register.display_name",
        "The name shown to others (default: the username)",
        "Tên hiển thị cho người khác (mặc định: tên đăng nhập)",
    ),
    ("cli.login.username", "The username", "Tên đăng nhập"),
    (
        "cli.history.player",
        "Another player's games (a player id) instead of your own",
        "Các ván của người chơi khác (mã người chơi) thay vì của bạn",
    ),
    (
        "cli.history.limit",
        "Games per page (at most 100)",
        "Số ván mỗi trang (tối đa 100)",
    ),
    (
        "cli.history.page",
        "The page after the previous one (the token it printed)",
        "Trang sau trang trước (mã mà trang trước đã in)",
    ),
    (
        "cli.history.game",
        "Print this game's move list (its standard text export) instead of the list",
        "In danh sách nước đi của ván này (bản xuất văn bản chuẩn) thay vì danh sách ván",
    ),
    (
        "cli.profile.player",
        "The player id (default: you)",
        "Mã người chơi (mặc định: bạn)",
    ),
    (
        "cli.profile.ruleset",
        "Also show the rating in this pool (e.g. caro/15/blocked-ends); repeatable. Without it, the pools of the player's recent rated games",
        "Hiện thêm điểm trong bảng xếp hạng này (ví dụ caro/15/blocked-ends); dùng được nhiều lần. Không có thì lấy các bảng của những ván tính điểm gần đây của người chơi",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};

    fn placeholders(text: &str) -> BTreeSet<String> {
        text.split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_owned()))
            .collect()
    }

    fn known_keys() -> BTreeSet<&'static str> {
        MESSAGES.iter().map(|(key, _, _)| *key).collect()
    }

    #[test]
    fn every_key_once_with_both_languages_filled() {
        assert_eq!(known_keys().len(), MESSAGES.len(), "a key twice");
        for (key, en, vi) in MESSAGES {
            assert!(!en.trim().is_empty() && !vi.trim().is_empty(), "{key}");
        }
    }

    #[test]
    fn both_languages_use_the_same_placeholders() {
        for (key, en, vi) in MESSAGES {
            assert_eq!(placeholders(vi), placeholders(en), "{key}");
        }
    }

    /// Keys whose Vietnamese is rightly the English: proper names and notation the seed
    /// sites keep as they are (Mancala, Backgammon, Kalah, Congklak, C1 cells, `X`/`O`).
    const SAME_IN_BOTH: &[&str] = &[
        "game.mancala",
        "game.backgammon",
        "name.mancalaKalah",
        "name.mancalaCongklak",
    ];

    #[test]
    fn the_vietnamese_is_a_translation_except_for_names_and_notation() {
        let same: Vec<&str> = MESSAGES
            .iter()
            .filter(|(key, en, vi)| en == vi && !SAME_IN_BOTH.contains(key))
            .map(|(key, _, _)| *key)
            .collect();
        assert!(same.is_empty(), "not translated: {same:?}");
        for key in SAME_IN_BOTH {
            let row = MESSAGES.iter().find(|(k, _, _)| k == key);
            assert!(
                row.is_some_and(|(_, en, vi)| en == vi),
                "{key} is allowed to be the same in both but is not (or is gone)"
            );
        }
    }

    /// The client's sources outside this module, each cut before its tests.
    fn sources() -> Vec<(PathBuf, String)> {
        let mut files = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
        let mut out = Vec::new();
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
            let code = text
                .split("#[cfg(test)]\nmod tests")
                .next()
                .unwrap_or_default()
                .to_owned();
            out.push((path, code));
        }
        assert!(out.len() > 10, "the sources were found");
        out
    }

    // Every `tr("…")` / `trf("…"` / `tr_in(lang, "…"` in the client's sources names a key of
    // the table (a typo would show the key to the player), and every key is used.
    #[test]
    fn every_key_the_sources_use_is_in_the_table_and_every_key_is_used() {
        let known = known_keys();
        let mut used = BTreeSet::new();
        for (path, text) in sources() {
            for literal in literals(&text) {
                // A key chosen before the call (`let key = if … { "a.b" } else { "a.c" }`).
                if known.contains(literal.text.as_str()) {
                    used.insert(literal.text.clone());
                }
                if literal.is_key() {
                    assert!(
                        known.contains(literal.text.as_str()),
                        "{}: unknown key {:?}",
                        path.display(),
                        literal.text
                    );
                    used.insert(literal.text);
                }
            }
        }
        // The command line's keys are built from its flags' names (checked in cli.rs).
        let unused: Vec<&&str> = known
            .iter()
            .filter(|k| !used.contains(**k) && !k.starts_with("cli."))
            .collect();
        assert!(unused.is_empty(), "keys no source uses: {unused:?}");
    }

    /// A string literal of the sources, with the code just before it and whether it sits in
    /// the arguments of something that shows text.
    struct Literal {
        text: String,
        before: String,
        after: String,
        shown: bool,
        line: usize,
    }

    impl Literal {
        /// Whether the literal is the first argument of the function `name` (`tr`, not `str`).
        fn first_argument_of(&self, name: &str) -> bool {
            self.before
                .trim_end()
                .strip_suffix(&format!("{name}("))
                .is_some_and(|rest| !rest.ends_with(|c: char| c.is_alphanumeric() || c == '_'))
        }

        /// A key of the table (`tr("…")`, `trf("…", …)`, `tr_in(lang, "…")`).
        fn is_key(&self) -> bool {
            self.first_argument_of("tr")
                || self.first_argument_of("trf")
                || self.before.trim_end().ends_with("tr_in(lang,")
        }

        /// A placeholder's name in `trf`'s parameters: `("name", &value)`.
        fn is_placeholder_name(&self) -> bool {
            self.before.trim_end().ends_with('(')
                && self.after.starts_with(',')
                && self.text.chars().all(|c| c.is_ascii_alphabetic())
        }
    }

    /// Calls whose string arguments reach the player: the printing and formatting macros,
    /// errors, and the screen.
    const SHOWING: &[&str] = &[
        "print!(",
        "println!(",
        "eprint!(",
        "eprintln!(",
        "write!(",
        "writeln!(",
        "format!(",
        "bail!(",
        "anyhow!(",
        "panic!(",
        ".line(",
        ".print(",
        ".context(",
        "push_str(",
        "String::from(",
        "Err(",
        "Invalid(",
        "then_some(",
        ".say(",
        ".note(",
    ];

    /// The string literals of Rust source `text` (comments skipped), each with what shows it.
    fn literals(text: &str) -> Vec<Literal> {
        let chars: Vec<char> = text.chars().collect();
        let mut out = Vec::new();
        // One entry per open parenthesis: does it open a call that shows text?
        let mut parens: Vec<bool> = Vec::new();
        let (mut i, mut line) = (0, 1);
        while i < chars.len() {
            let c = chars[i];
            let next = chars.get(i + 1).copied();
            match c {
                '\n' => line += 1,
                '/' if next == Some('/') => {
                    while i < chars.len() && chars[i] != '\n' {
                        i += 1;
                    }
                    continue;
                }
                '\'' => {
                    // A char literal ('"', '\'') or a lifetime ('a): skip the former.
                    if next == Some('\\') {
                        i += 2;
                        while i < chars.len() && chars[i] != '\'' {
                            i += 1;
                        }
                    } else if chars.get(i + 2) == Some(&'\'') {
                        i += 2;
                    }
                }
                '(' => {
                    let before: String = chars[i.saturating_sub(20)..=i].iter().collect();
                    parens.push(SHOWING.iter().any(|call| before.ends_with(call)));
                }
                ')' => {
                    parens.pop();
                }
                '"' => {
                    let raw = i > 0 && chars[i - 1] == 'r' || i > 1 && chars[i - 1] == '#';
                    let start = i + 1;
                    i += 1;
                    while i < chars.len() && chars[i] != '"' {
                        if chars[i] == '\\' && !raw {
                            i += 1;
                        }
                        if chars.get(i) == Some(&'\n') {
                            line += 1;
                        }
                        i += 1;
                    }
                    let literal: String = chars[start..i.min(chars.len())].iter().collect();
                    let before: String = chars[start.saturating_sub(40)..start - 1]
                        .iter()
                        .collect::<String>()
                        .trim_start()
                        .to_owned();
                    let after: String = chars[(i + 1).min(chars.len())..(i + 14).min(chars.len())]
                        .iter()
                        .collect();
                    let converted = [".to_owned()", ".to_string()", ".into()"]
                        .iter()
                        .any(|tail| after.starts_with(tail));
                    let constant = before.trim_end().ends_with("&str =");
                    out.push(Literal {
                        text: literal,
                        before,
                        after,
                        shown: parens.iter().any(|shows| *shows) || converted || constant,
                        line,
                    });
                }
                _ => {}
            }
            i += 1;
        }
        out
    }

    /// Whether a literal holds words (two letters in a row outside `{placeholders}`).
    fn has_words(literal: &str) -> bool {
        let mut depth = 0;
        let mut run = 0;
        for c in literal.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                c if depth == 0 && c.is_alphabetic() => {
                    run += 1;
                    if run >= 2 {
                        return true;
                    }
                    continue;
                }
                _ => {}
            }
            run = 0;
        }
        false
    }

    /// Literals with letters that are shown as they are in both languages: addresses, the
    /// games' notation and typed commands, not words to translate.
    const SHOWN_AS_IS: &[&str] = &[
        "ludus://room/{code}",
        "http://127.0.0.1:50051",
        // Names of things, not words: an environment variable, the session file and the
        // stdin thread, the hidden guest that reads public data, the HTTP auth scheme.
        "LUDUS_CONFIG_DIR",
        "session",
        "stdin",
        "visitor",
        "Bearer {token}",
        // Keys of the command line's help, built from a subcommand's path and a flag's id.
        "cli.{path}.{id}",
        "cli.{id}",
        "cli.{path}",
        // The computer level a room's `computer` asks the server for when none is typed.
        "normal",
        // The session file's own comment: a file format, read back by this client.
        "# ludus session: a secret, keep this file private (ludus logout removes it)\\n\\\n             \
         server={}\\nusername={}\\nplayer_id={}\\nrefresh_token={}\\n",
        // Backgammon notation, typed as shown (B1): `bar/22`, `6/off`.
        "bar",
        "off",
        "{} bar {}",
    ];

    // The lint behind "every string in both languages": text shown to the player comes from
    // the table above, never from an English literal printed, formatted or returned as an
    // error directly. A new `println!("…")` with words fails here.
    #[test]
    fn no_source_shows_a_literal_with_words_outside_the_table() {
        let known = known_keys();
        let mut found = Vec::new();
        for (path, text) in sources() {
            for literal in literals(&text) {
                if literal.shown
                    && !literal.is_key()
                    && !known.contains(literal.text.as_str())
                    && !literal.is_placeholder_name()
                    && has_words(&literal.text)
                    && !SHOWN_AS_IS.contains(&literal.text.as_str())
                {
                    found.push(format!(
                        "{}:{}: {:?}",
                        path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
                            .unwrap_or(&path)
                            .display(),
                        literal.line,
                        literal.text
                    ));
                }
            }
        }
        assert!(
            found.is_empty(),
            "{} literal(s) shown without the table:\n{}",
            found.len(),
            found.join("\n")
        );
    }

    #[test]
    fn the_literal_scan_sees_what_it_must() {
        let scanned = literals(
            "fn f() { println!(\"hello {name}\"); let c = '\"'; x.line(&format!(\"a {b}\")); \
             let k = \"ok\".to_owned(); match s { \"seat\" => {} } }",
        );
        let shown: Vec<&str> = scanned
            .iter()
            .filter(|l| l.shown)
            .map(|l| l.text.as_str())
            .collect();
        assert_eq!(shown, ["hello {name}", "a {b}", "ok"]);
        assert!(has_words("hello {name}") && !has_words("{a} {b}: {c}"));
    }

    #[test]
    fn the_arguments_choose_the_language_before_clap_parses() {
        assert_eq!(
            lang_from_args(["ludus", "play", "--lang", "vi"]),
            Some(Lang::Vi)
        );
        assert_eq!(
            lang_from_args(["ludus", "--lang=en", "watch"]),
            Some(Lang::En)
        );
        assert_eq!(lang_from_args(["ludus", "play"]), None);
        assert_eq!(lang_from_args(["ludus", "--", "--lang", "vi"]), None);
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
