// Plays given mine layouts with David Hill's Minesweeper solver (a peer, built outside this
// repository by bench/players/hill_paired.py; nothing of it is copied here): one game per
// input line "INDEX WIDTH HEIGHT FIRST_X,FIRST_Y X,Y X,Y ..." (the mines; x is the column,
// y the row), the first click given, as the bulk runner's pre-actions give it. Prints
// "INDEX WON GUESSES" per game, in input order. With the word "ask" after the setting, the
// lines are positions to ask the solver about instead (HillAsk.java).
//
// Usage: java -cp CLASSES:. HillGames SMALL_ANALYSIS|LARGE_ANALYSIS|... [ask] < layouts.txt

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import minesweeper.gamestate.GameStateModel;
import minesweeper.gamestate.GameStateReader;
import minesweeper.solver.Solver;
import minesweeper.solver.settings.PlayStyle;
import minesweeper.solver.settings.SettingsFactory;
import minesweeper.solver.settings.SolverSettings;
import minesweeper.structure.Action;
import minesweeper.structure.Location;

public class HillGames {

	public static void main(String[] args) throws Exception {
		SolverSettings settings = SettingsFactory.GetSettings(SettingsFactory.Setting.valueOf(args[0]));
		boolean ask = args.length > 1 && args[1].equals("ask");
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
		String line;
		while ((line = in.readLine()) != null) {
			String[] words = line.trim().split(" ");
			if (words.length < 4) {
				continue;
			}
			if (ask) {
				HillAsk.answer(words, settings);
				continue;
			}
			int index = Integer.parseInt(words[0]);
			int width = Integer.parseInt(words[1]);
			int height = Integer.parseInt(words[2]);
			Location first = location(words[3]);
			List<Location> mines = new ArrayList<>();
			for (int i = 4; i < words.length; i++) {
				mines.add(location(words[i]));
			}
			GameStateModel game = GameStateReader.loadMines(width, height, mines, Collections.emptyList());
			int guesses = play(game, first, settings);
			boolean won = game.getGameState() == GameStateModel.WON;
			System.out.println(index + " " + (won ? 1 : 0) + " " + guesses);
			System.out.flush();
		}
	}

	static Location location(String word) {
		String[] xy = word.split(",");
		return new Location(Integer.parseInt(xy[0]), Integer.parseInt(xy[1]));
	}

	/** Plays the game from its first click to the end; the guesses the solver made. */
	static int play(GameStateModel game, Location first, SolverSettings settings) {
		game.doAction(new Action(first, Action.CLEAR));
		Solver solver = new Solver(game, settings, false);
		solver.setPlayStyle(PlayStyle.NO_FLAG);
		int guesses = 0;
		for (int loop = 0; loop < 100000; loop++) {
			int state = game.getGameState();
			if (state == GameStateModel.WON || state == GameStateModel.LOST) {
				break;
			}
			solver.start();
			Action[] moves = solver.getResult();
			if (moves.length == 0) {
				throw new IllegalStateException("no move from the solver");
			}
			for (Action move : moves) {
				if (!move.isCertainty()) {
					guesses++;
				}
				game.doAction(move);
				state = game.getGameState();
				if (state == GameStateModel.WON || state == GameStateModel.LOST) {
					break;
				}
			}
		}
		return guesses;
	}
}
