//! The terminal side of the interactive replay: draws a [`Screen`] with
//! ratatui and turns crossterm's keys into [`Key`]s. Nothing here decides
//! anything; the model does.

use std::io::stdout;

use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::{Frame, Terminal};

use super::{Key, Model, Replay, Screen};
use crate::store::Fail;

/// Puts the terminal back as it was, however the view ends (a panic too).
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        let _ = disable_raw_mode();
        let _ = execute!(stdout(), LeaveAlternateScreen, ratatui::crossterm::cursor::Show);
    }
}

/// Runs the view until the user quits.
pub fn run(replay: &Replay, model: Model) -> Result<(), Fail> {
    let io = |e: std::io::Error| fail!("the terminal: {e}");
    enable_raw_mode().map_err(io)?;
    let _restore = Restore;
    execute!(stdout(), EnterAlternateScreen).map_err(io)?;
    let mut terminal = Terminal::new(CrosstermBackend::new(stdout())).map_err(io)?;
    event_loop(&mut terminal, replay, model).map_err(io)
}

fn event_loop<B: Backend>(terminal: &mut Terminal<B>, replay: &Replay, mut model: Model) -> std::io::Result<()> {
    loop {
        terminal.draw(|f| draw(f, replay, &model))?;
        if let Event::Key(k) = event::read()? {
            if k.kind == KeyEventKind::Release {
                continue;
            }
            let key = match k.code {
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
                _ => continue,
            };
            model = model.key(replay, key);
            if model.quit {
                return Ok(());
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
        let area = centered(
            f.area(),
            help.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u16 + 4,
            help.len() as u16 + 2,
        );
        f.render_widget(Clear, area);
        let lines: Vec<Line> = help.iter().map(|l| Line::from(l.clone())).collect();
        f.render_widget(Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title(" keys ")), area);
    }
}

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect { x: area.x + (area.width - width) / 2, y: area.y + (area.height - height) / 2, width, height }
}
