"""The poker room's player pages (included from ``casino/page_urls.py`` under ``poker/``)."""

from django.urls import path

from poker import staff, views

urlpatterns = [
    path("", views.poker_lobby, name="poker-lobby"),
    path("tables/<int:table_id>/", views.poker_table_page, name="poker-table"),
    path("tables/<int:table_id>/tile/", views.poker_table_tile, name="poker-table-tile"),
    path("my-tables/", views.poker_my_tables, name="poker-my-tables"),
    path("tables/<int:table_id>/state.json", views.poker_table_state, name="poker-table-state"),
    path("tables/<int:table_id>/act/", views.poker_table_act, name="poker-table-act"),
    path("tables/<int:table_id>/preact/", views.poker_table_preact, name="poker-table-preact"),
    path("tables/<int:table_id>/sit/", views.poker_sit, name="poker-sit"),
    path("tables/<int:table_id>/top-up/", views.poker_top_up, name="poker-top-up"),
    path("tables/<int:table_id>/sit-out/", views.poker_sit_out, name="poker-sit-out"),
    path("tables/<int:table_id>/sit-in/", views.poker_sit_in, name="poker-sit-in"),
    path("tables/<int:table_id>/leave/", views.poker_leave, name="poker-leave"),
    path("tables/<int:table_id>/waiting-list/", views.poker_waitlist, name="poker-waitlist"),
    path("notes/", views.poker_note, name="poker-note"),
    path("hands/", views.poker_hand_history, name="poker-hands"),
    path("hands/<int:hand_id>/", views.poker_hand_detail, name="poker-hand"),
    path("hands/<int:hand_id>/replay/", views.poker_hand_replay, name="poker-hand-replay"),
    path("hands/<int:hand_id>/pokerstars.txt", views.poker_hand_pokerstars, name="poker-hand-pokerstars"),
    path("staff/tables/", staff.poker_tables, name="poker-staff-tables"),
    path("staff/tables/new/", staff.poker_table_new, name="poker-staff-table-new"),
    path("staff/tables/<int:table_id>/state/", staff.poker_table_state, name="poker-staff-table-state"),
]
