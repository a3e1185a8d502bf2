"""The public pages: leaderboards, players, head-to-head, seasons, fixtures, embeds, feeds and
exports. Anyone may read them; nothing here writes."""
