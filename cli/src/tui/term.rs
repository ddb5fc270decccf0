//! The terminal side of the interactive replay and the interactive turn:
//! draws their screens with ratatui and turns crossterm's keys into
//! [`Key`]s. Nothing here decides anything; the models do.

use std::io::stdout;
use std::time::Duration;

use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::{Frame, Terminal};

use super::{play, Key, Model, Replay, Screen};
use crate::fail::Fail;

/// Puts the terminal back as it was, however the view ends (a panic too).
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        let _ = disable_raw_mode();
        let _ = execute!(stdout(), LeaveAlternateScreen, ratatui::crossterm::cursor::Show);
    }
}

fn io(e: std::io::Error) -> Fail {
    fail!("the terminal: {e}")
}

/// The terminal in raw mode on its alternate screen, for as long as the
/// returned guard lives.
fn open_terminal() -> Result<(Terminal<CrosstermBackend<std::io::Stdout>>, Restore), Fail> {
    enable_raw_mode().map_err(io)?;
    let restore = Restore;
    execute!(stdout(), EnterAlternateScreen).map_err(io)?;
    Ok((Terminal::new(CrosstermBackend::new(stdout())).map_err(io)?, restore))
}

/// Runs the view until the user quits.
pub fn run(replay: &Replay, model: Model) -> Result<(), Fail> {
    let (mut terminal, _restore) = open_terminal()?;
    event_loop(&mut terminal, replay, model).map_err(io)
}

/// The next key the models know (none: another event, or a key they do not).
fn next_key() -> std::io::Result<Option<Key>> {
    let Event::Key(k) = event::read()? else { return Ok(None) };
    if k.kind == KeyEventKind::Release {
        return Ok(None);
    }
    Ok(Some(match k.code {
        KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => Key::Interrupt,
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Enter => Key::Enter,
        KeyCode::Esc => Key::Esc,
        KeyCode::Backspace => Key::Backspace,
        KeyCode::Left => Key::Left,
        KeyCode::Right => Key::Right,
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::PageUp => Key::PageUp,
        KeyCode::PageDown => Key::PageDown,
        KeyCode::Home => Key::Home,
        KeyCode::End => Key::End,
        _ => return Ok(None),
    }))
}

fn event_loop<B: Backend>(terminal: &mut Terminal<B>, replay: &Replay, mut model: Model) -> std::io::Result<()> {
    loop {
        terminal.draw(|f| draw(f, replay, &model))?;
        if let Some(key) = next_key()? {
            model = model.key(replay, key);
            if model.quit {
                return Ok(());
            }
        }
    }
}

/// How long the interactive turn on a server waits for a key before it
/// reads the server's game again.
const FOLLOW_EVERY: Duration = Duration::from_secs(1);

/// Runs the interactive turn until the user quits; `perform` does what the
/// model asks of the store, the files or the server (the screen says it is
/// at work while it does). While the model follows a server's game, a
/// second without a key is a tick. Hands back the model as it ended.
pub fn run_play(
    mut model: play::Model,
    mut perform: impl FnMut(play::Request) -> play::Outcome,
) -> Result<play::Model, Fail> {
    let (mut terminal, _restore) = open_terminal()?;
    loop {
        terminal.draw(|f| draw_play(f, &model)).map_err(io)?;
        if let Some(request) = model.request.take() {
            let quiet = matches!(request, play::Request::Follow { .. });
            model = model.answer(perform(request));
            // What the store or a key file said on standard error is drawn over.
            if !quiet {
                terminal.clear().map_err(io)?;
            }
            continue;
        }
        if model.follows() && !event::poll(FOLLOW_EVERY).map_err(io)? {
            model = model.tick();
            continue;
        }
        if let Some(key) = next_key().map_err(io)? {
            model = model.key(key);
            if model.quit {
                return Ok(model);
            }
        }
    }
}

/// Draws the model: a title line, the narrative on the left, the state
/// over the current decision's dice on the right, a status line.
pub fn draw(f: &mut Frame, replay: &Replay, model: &Model) {
    let rows = Layout::default()
        .direction(Direction::Vertical)
        .constraints([Constraint::Length(1), Constraint::Min(3), Constraint::Length(1)])
        .split(f.area());
    let columns = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([Constraint::Percentage(50), Constraint::Percentage(50)])
        .split(rows[1]);
    let (height, width) = (columns[0].height.saturating_sub(2), columns[0].width.saturating_sub(2));
    let screen: Screen = model.screen(replay, height as usize, width as usize);
    let dice_height = (screen.dice.len() as u16 + 2).clamp(3, columns[1].height / 2);
    let right = Layout::default()
        .direction(Direction::Vertical)
        .constraints([Constraint::Min(3), Constraint::Length(dice_height)])
        .split(columns[1]);
    let bold = Style::default().add_modifier(Modifier::BOLD);
    f.render_widget(Paragraph::new(Span::styled(screen.title.clone(), bold)), rows[0]);
    let narrative: Vec<Line> = screen
        .narrative
        .iter()
        .map(|(text, current)| {
            if *current {
                Line::from(Span::styled(text.clone(), Style::default().add_modifier(Modifier::REVERSED)))
            } else {
                Line::from(text.clone())
            }
        })
        .collect();
    f.render_widget(
        Paragraph::new(narrative).block(Block::default().borders(Borders::ALL).title(" narrative ")),
        columns[0],
    );
    let state: Vec<Line> = screen.state.iter().map(|l| Line::from(l.clone())).collect();
    f.render_widget(Paragraph::new(state).block(Block::default().borders(Borders::ALL).title(" state ")), right[0]);
    let dice: Vec<Line> = screen.dice.iter().map(|l| Line::from(l.clone())).collect();
    f.render_widget(Paragraph::new(dice).block(Block::default().borders(Borders::ALL).title(" dice ")), right[1]);
    let bottom = match (&screen.prompt, screen.message.is_empty()) {
        (Some(prompt), _) => prompt.clone(),
        (None, false) => format!("{} — {}", screen.message, screen.status),
        (None, true) => screen.status.clone(),
    };
    f.render_widget(Paragraph::new(bottom), rows[2]);
    if let Some(help) = &screen.help {
        draw_help(f, help);
    }
}

fn draw_help(f: &mut Frame, help: &[String]) {
    let area =
        centered(f.area(), help.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u16 + 4, help.len() as u16 + 2);
    f.render_widget(Clear, area);
    let lines: Vec<Line> = help.iter().map(|l| Line::from(l.clone())).collect();
    f.render_widget(Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title(" keys ")), area);
}

/// Lines, those marked `true` in reverse video.
fn marked(lines: &[(String, bool)]) -> Vec<Line<'static>> {
    let reversed = Style::default().add_modifier(Modifier::REVERSED);
    lines
        .iter()
        .map(|(text, mark)| match mark {
            true => Line::from(Span::styled(text.clone(), reversed)),
            false => Line::from(text.clone()),
        })
        .collect()
}

/// Draws the interactive turn: a title line; the menu (or the field asked)
/// on the left; the table over the narrative on the right; what the last
/// key did, the question waiting for y or n, and the status at the bottom.
pub fn draw_play(f: &mut Frame, model: &play::Model) {
    let rows = Layout::default()
        .direction(Direction::Vertical)
        .constraints([Constraint::Length(1), Constraint::Min(3), Constraint::Length(3)])
        .split(f.area());
    let columns = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([Constraint::Percentage(50), Constraint::Percentage(50)])
        .split(rows[1]);
    let right = Layout::default()
        .direction(Direction::Vertical)
        .constraints([Constraint::Percentage(50), Constraint::Percentage(50)])
        .split(columns[1]);
    let inner = |r: Rect| (r.height.saturating_sub(2) as usize, r.width.saturating_sub(2) as usize);
    let ((menu_rows, menu_width), (narrative_rows, narrative_width)) = (inner(columns[0]), inner(right[1]));
    let table_width = inner(right[0]).1;
    let screen = model.screen(play::Panes { menu_rows, menu_width, table_width, narrative_rows, narrative_width });
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let block = |title: String| Block::default().borders(Borders::ALL).title(title);
    f.render_widget(Paragraph::new(Span::styled(screen.title.clone(), bold)), rows[0]);
    f.render_widget(Paragraph::new(marked(&screen.menu)).block(block(screen.menu_title.clone())), columns[0]);
    let state: Vec<Line> = screen.state.iter().map(|l| Line::from(l.clone())).collect();
    f.render_widget(Paragraph::new(state).block(block(" the table ".into())), right[0]);
    f.render_widget(Paragraph::new(marked(&screen.narrative)).block(block(" narrative ".into())), right[1]);
    // A long message (a server's refusal) takes the question's row when no question is asked.
    let rows_for_message = if screen.question.is_some() { 1 } else { 2 };
    let mut bottom: Vec<Line> = super::wrap(&screen.message, rows[2].width as usize)
        .into_iter()
        .take(rows_for_message)
        .map(Line::from)
        .collect();
    bottom.resize(rows_for_message, Line::default());
    if let Some(q) = &screen.question {
        bottom.push(Line::from(Span::styled(q.clone(), bold.add_modifier(Modifier::REVERSED))));
    }
    bottom.push(Line::from(screen.status.clone()));
    f.render_widget(Paragraph::new(bottom), rows[2]);
    if let Some(help) = &screen.help {
        draw_help(f, help);
    }
}

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect { x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2, width, height }
}
