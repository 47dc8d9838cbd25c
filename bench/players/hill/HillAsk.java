// Asks David Hill's Minesweeper solver (a peer, built outside this repository by
// bench/players/hill_paired.py; nothing of it is copied here) what it would click in given
// positions. One position per input line:
//   "ID WIDTH HEIGHT M X,Y X,Y ... R X,Y X,Y ..."
// after M the mines, after R the cells revealed (x is the column, y the row); the cells are
// cleared in that order on the loaded layout, and a fresh solver is asked for its move.
// Prints "ID X,Y KIND METHOD SAFETY" per position, in input order: the first action it
// returns, KIND "certain" or "guess", METHOD the solver's own name for the rule that chose it
// (its MoveMethod), SAFETY its chance that the cell is safe; "ID none" where it returns none.
//
// Usage: java -cp CLASSES HillGames SMALL_ANALYSIS|LARGE_ANALYSIS|... ask < positions.txt

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import minesweeper.gamestate.GameStateModel;
import minesweeper.gamestate.GameStateReader;
import minesweeper.solver.Solver;
import minesweeper.solver.settings.PlayStyle;
import minesweeper.solver.settings.SolverSettings;
import minesweeper.structure.Action;
import minesweeper.structure.Location;

public class HillAsk {

	/** Prints the solver's answer for one input line, split into words. */
	static void answer(String[] words, SolverSettings settings) {
		String id = words[0];
		int width = Integer.parseInt(words[1]);
		int height = Integer.parseInt(words[2]);
		List<Location> mines = new ArrayList<>();
		List<Location> revealed = new ArrayList<>();
		List<Location> into = null;
		for (int i = 3; i < words.length; i++) {
			if (words[i].equals("M")) {
				into = mines;
			} else if (words[i].equals("R")) {
				into = revealed;
			} else {
				into.add(HillGames.location(words[i]));
			}
		}
		GameStateModel game = GameStateReader.loadMines(width, height, mines, Collections.emptyList());
		for (Location cell : revealed) {
			game.doAction(new Action(cell, Action.CLEAR));
		}
		Solver solver = new Solver(game, settings, false);
		solver.setPlayStyle(PlayStyle.NO_FLAG);
		solver.start();
		Action[] moves = solver.getResult();
		if (moves.length == 0) {
			System.out.println(id + " none");
		} else {
			Action move = moves[0];
			System.out.println(id + " " + move.x + "," + move.y + " " + (move.isCertainty() ? "certain" : "guess")
					+ " " + move.getMoveMethod().name() + " " + move.getBigProb().doubleValue());
		}
		System.out.flush();
	}
}
