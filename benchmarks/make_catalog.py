# ruff: noqa: E501  (the tables below are data, one tool or query per line)
"""Write toolsys/search/catalog.json, queries.json and queries_holdout.json from the tables below.

    python benchmarks/make_catalog.py          # rewrite both files
    python benchmarks/make_catalog.py --check  # exit 1 when the files differ from the tables

Each tool is one line: name, description, parameters. Parameters are `;`-separated
`name[?]:type:description`, `?` marking an optional one; types are str, int, num, bool, list (of
strings) or `a|b|c` (an enum of strings). The category follows from the verbs in the name
(run/deploy/restart... execute; get/list/search... read; anything else write).

The catalog is written to be hard: many domains have near-duplicates (send an email, a Slack
message, an SMS, a Teams post; cancel a subscription, an order, a booking, a meeting), and the
queries say what a user wants in a user's words, not the description's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "toolsys" / "search"

EXECUTE = {
    "run",
    "deploy",
    "restart",
    "execute",
    "trigger",
    "rollback",
    "scale",
    "reboot",
    "rerun",
    "retry",
    "promote",
    "rotate",
    "flush",
    "purge",
    "invoke",
    "start",
    "stop",
}
READ = {
    "get",
    "list",
    "search",
    "find",
    "check",
    "lookup",
    "describe",
    "count",
    "preview",
    "download",
    "read",
    "query",
    "fetch",
    "show",
    "compare",
    "estimate",
    "calculate",
    "convert",
    "translate",
    "validate",
    "forecast",
    "track",
    "summarize",
    "explain",
    "detect",
    "geocode",
    "export",
    "verify",
    "diff",
    "tail",
    "view",
    "watch",
}

TOOLS = """
# calendar
calendar_create_event | Create a calendar event with a title, start and end time, and optional attendees and location. | title:str:Event title; start:str:Start time (ISO 8601); end:str:End time (ISO 8601); attendees?:list:Email addresses to invite; location?:str:Room or address
calendar_update_event | Change the time, title, location or attendees of an existing calendar event. | event_id:str:ID of the event; start?:str:New start time; end?:str:New end time; title?:str:New title
calendar_delete_event | Delete an event from the calendar and notify its attendees that it is cancelled. | event_id:str:ID of the event; notify?:bool:Send a cancellation notice to attendees
calendar_list_events | List calendar events between two dates, optionally filtered by a search term. | start:str:Range start date; end:str:Range end date; query?:str:Words to match in event titles
calendar_find_free_slots | Find time slots when all the given people are free for a meeting of a given length. | attendees:list:Email addresses of the people; duration_minutes:int:Length of the meeting; within_days?:int:How many days ahead to look
calendar_respond_to_invite | Accept, decline or tentatively accept a meeting invitation. | event_id:str:ID of the invitation; response:accept|decline|tentative:Your answer
calendar_create_reminder | Set a reminder that pops up at a given time, not tied to a meeting. | text:str:What to be reminded of; at:str:When to remind (ISO 8601)
calendar_set_out_of_office | Mark yourself out of office for a date range and decline new meetings automatically. | start:str:First day away; end:str:Last day away; message?:str:Auto-reply text
calendar_share_calendar | Share a calendar with another person, read-only or with edit rights. | calendar_id:str:Calendar to share; email:str:Person to share with; role:reader|writer:Access level
calendar_get_event | Get the details of one calendar event: time, attendees, location, video link. | event_id:str:ID of the event
calendar_create_recurring_event | Create an event that repeats daily, weekly or monthly, like a standup or a one-on-one. | title:str:Event title; start:str:First occurrence; frequency:daily|weekly|monthly:How often it repeats; count?:int:Number of occurrences
calendar_book_room | Book a meeting room for a time slot, given the number of people. | room_id:str:Room to book; start:str:Start time; end:str:End time; capacity?:int:People attending
# email
email_send_message | Send an email to one or more recipients, with subject, body and optional attachments. | to:list:Recipient addresses; subject:str:Subject line; body:str:Message text; attachments?:list:File IDs to attach
email_create_draft | Save an email as a draft without sending it, to review or send later. | to:list:Recipient addresses; subject:str:Subject line; body:str:Message text
email_reply | Reply to an email thread, to the sender only or to everyone on it. | message_id:str:Email to reply to; body:str:Reply text; reply_all?:bool:Reply to all recipients
email_forward | Forward an email, with its attachments, to other people. | message_id:str:Email to forward; to:list:Recipient addresses; note?:str:Text added above the forwarded message
email_search_inbox | Search the mailbox for emails by sender, subject words, date or label. | query:str:Words to search for; sender?:str:From address; after?:str:Only mail after this date
email_get_message | Read one email in full: headers, body and the list of attachments. | message_id:str:ID of the email
email_archive | Archive emails so they leave the inbox but stay searchable. | message_ids:list:Emails to archive
email_mark_spam | Report emails as spam and move them to the junk folder. | message_ids:list:Emails to report
email_add_label | Add a label or folder tag to emails to organise them. | message_ids:list:Emails to label; label:str:Label name
email_create_filter | Create a rule that automatically labels, archives or forwards incoming mail matching a pattern. | sender?:str:Match this sender; subject_contains?:str:Match these subject words; action:label|archive|forward|delete:What to do with matching mail
email_unsubscribe | Unsubscribe from a mailing list or newsletter using its unsubscribe link. | message_id:str:A message from the list
email_schedule_send | Send an email later, at a scheduled date and time. | to:list:Recipient addresses; subject:str:Subject line; body:str:Message text; send_at:str:When to send (ISO 8601)
# messaging
slack_send_message | Post a message to a Slack channel or a direct message to a Slack user. | channel:str:Channel name or user ID; text:str:Message text; thread_ts?:str:Reply inside this thread
slack_create_channel | Create a new Slack channel, public or private, and invite members. | name:str:Channel name; private?:bool:Make it private; members?:list:User IDs to invite
slack_search_messages | Search Slack message history across channels. | query:str:Words to find; channel?:str:Only this channel
slack_set_status | Set your Slack status text and emoji, with an optional expiry. | text:str:Status text; emoji?:str:Status emoji; expires_in_minutes?:int:Clear it after this long
slack_add_reaction | Add an emoji reaction to a Slack message. | channel:str:Channel of the message; timestamp:str:Message timestamp; emoji:str:Emoji name
slack_upload_file | Upload a file to a Slack channel with an optional comment. | channel:str:Channel to share in; file_id:str:File to upload; comment?:str:Text posted with it
teams_post_message | Post a message in a Microsoft Teams channel or chat. | team:str:Team name; channel:str:Channel name; text:str:Message text
teams_schedule_meeting | Schedule a Microsoft Teams video meeting and send the join link to attendees. | title:str:Meeting title; start:str:Start time; attendees:list:Email addresses
sms_send_text | Send an SMS text message to a phone number. | phone_number:str:Number in international format; text:str:Message, at most 160 characters
sms_send_verification_code | Text a one-time verification code to a phone number for sign-in. | phone_number:str:Number in international format
whatsapp_send_message | Send a WhatsApp message to a contact using an approved template. | phone_number:str:Recipient number; template:str:Template name; variables?:list:Values for the template placeholders
push_send_notification | Send a push notification to a user's mobile devices. | user_id:str:User to notify; title:str:Notification title; body:str:Notification text
# billing
billing_create_subscription | Subscribe a customer to a plan, with an optional trial period and coupon. | customer_id:str:Customer; plan_id:str:Plan to subscribe to; trial_days?:int:Free trial length; coupon?:str:Coupon code
billing_cancel_subscription | Cancel a customer's subscription, at the end of the billing period or immediately. | subscription_id:str:Subscription to cancel; at_period_end?:bool:Keep access until the period ends
billing_pause_subscription | Pause a subscription's billing for a number of cycles without cancelling it. | subscription_id:str:Subscription to pause; cycles:int:Billing cycles to skip
billing_resume_subscription | Resume a paused subscription so billing starts again. | subscription_id:str:Subscription to resume
billing_change_plan | Upgrade or downgrade a subscription to another plan, with prorated charges. | subscription_id:str:Subscription to change; plan_id:str:New plan; prorate?:bool:Charge or credit the difference now
billing_get_subscription | Get a subscription's plan, status, next renewal date and price. | subscription_id:str:Subscription to look up
billing_list_plans | List the available pricing plans with their prices and features. | currency?:str:Show prices in this currency
billing_apply_coupon | Apply a discount coupon to a customer's subscription. | subscription_id:str:Subscription; coupon:str:Coupon code
billing_create_coupon | Create a discount coupon: a percentage or fixed amount off, with an expiry date. | code:str:Coupon code; percent_off?:num:Percentage discount; amount_off?:num:Fixed discount; expires?:str:Expiry date
billing_update_payment_method | Replace the card or bank account a customer is billed on. | customer_id:str:Customer; payment_method_id:str:New card or bank account token
billing_get_usage | Get a customer's metered usage for the current billing period (API calls, seats, storage). | customer_id:str:Customer; metric?:str:Which usage metric
billing_list_customer_invoices | List the invoices billed to one customer, with amounts and payment status. | customer_id:str:Customer; status?:paid|open|overdue|void:Only invoices in this state
# payments and invoices
payments_create_charge | Charge a customer's saved card or payment method a one-off amount. | customer_id:str:Customer to charge; amount:num:Amount; currency:str:Three-letter currency code; description?:str:What the charge is for
payments_refund | Refund a payment in full or in part back to the customer's card. | payment_id:str:Payment to refund; amount?:num:Amount to refund, the whole payment if left out; reason?:duplicate|fraudulent|requested_by_customer:Why
payments_get_payment | Look up a payment: amount, status, card used and any refunds. | payment_id:str:Payment ID
payments_list_disputes | List chargebacks and disputes opened by card holders, with their deadlines. | status?:open|won|lost:Only disputes in this state
payments_respond_to_dispute | Submit evidence to contest a chargeback. | dispute_id:str:Dispute; evidence:str:Explanation and documents
payments_create_payment_link | Create a shareable payment link for a product or amount. | amount:num:Amount; currency:str:Currency code; description:str:What is being paid for
payments_list_payouts | List payouts from the payment provider to the company bank account. | after?:str:Only payouts after this date
invoice_create | Create an invoice for a customer with line items, tax and a due date. | customer_id:str:Customer; items:list:Line items; due_date:str:When payment is due; tax_rate?:num:Tax percentage
invoice_send | Email an invoice to the customer with a link to pay online. | invoice_id:str:Invoice to send
invoice_void | Void an invoice that was issued by mistake so it can no longer be paid. | invoice_id:str:Invoice to void
invoice_send_reminder | Send a payment reminder for an overdue invoice. | invoice_id:str:Overdue invoice; message?:str:Extra text for the customer
invoice_download_pdf | Download an invoice as a PDF file. | invoice_id:str:Invoice
invoice_record_payment | Mark an invoice as paid after receiving money by bank transfer or cheque. | invoice_id:str:Invoice; amount:num:Amount received; paid_on:str:Date received
# crm
crm_create_contact | Add a person to the CRM with name, email, phone and company. | name:str:Full name; email:str:Email address; phone?:str:Phone number; company?:str:Company name
crm_update_contact | Update a CRM contact's details such as title, phone or owner. | contact_id:str:Contact; fields:str:Fields to change as key=value pairs
crm_search_contacts | Search CRM contacts by name, email, company or tag. | query:str:Words to find; tag?:str:Only contacts with this tag
crm_create_lead | Create a sales lead from a form, event or referral, with its source. | name:str:Person or company; email:str:Email address; source:web|event|referral|outbound:Where the lead came from
crm_convert_lead | Convert a qualified lead into a contact, an account and an opportunity. | lead_id:str:Lead to convert
crm_create_deal | Open a sales opportunity (deal) with an amount, stage and expected close date. | account_id:str:Account; name:str:Deal name; amount:num:Expected value; close_date:str:Expected close date
crm_update_deal_stage | Move a deal to another pipeline stage, such as negotiation or closed won. | deal_id:str:Deal; stage:prospecting|qualified|proposal|negotiation|closed_won|closed_lost:New stage
crm_list_deals | List open deals in the sales pipeline, filtered by owner or stage. | owner?:str:Sales rep; stage?:str:Pipeline stage
crm_log_activity | Log a call, meeting or note against a contact or deal. | record_id:str:Contact or deal; kind:call|meeting|note:Activity type; summary:str:What happened
crm_assign_owner | Assign an account, lead or deal to a sales rep. | record_id:str:Record to assign; owner:str:Sales rep's email
crm_merge_duplicates | Merge two duplicate CRM contacts into one record, keeping the history of both. | primary_id:str:Record to keep; duplicate_id:str:Record to merge into it
crm_get_account | Get a company account's details, contacts, open deals and revenue. | account_id:str:Account
crm_forecast_revenue | Forecast pipeline revenue for a quarter, weighted by deal stage probability. | quarter:str:Quarter like 2026-Q3; owner?:str:Only this rep's deals
crm_add_to_campaign | Add contacts to a marketing campaign or nurture sequence. | campaign_id:str:Campaign; contact_ids:list:Contacts to add
# support
support_create_ticket | Open a support ticket for a customer issue, with priority and category. | subject:str:Short summary; description:str:What the customer reports; priority?:low|normal|high|urgent:How urgent
support_update_ticket | Change a ticket's status, priority or assignee. | ticket_id:str:Ticket; status?:open|pending|solved|closed:New status; assignee?:str:Agent to assign
support_add_comment | Add a public reply or internal note to a support ticket. | ticket_id:str:Ticket; body:str:Comment text; internal?:bool:Visible to agents only
support_search_tickets | Search support tickets by requester, status, tag or text. | query:str:Words to find; status?:str:Ticket status
support_get_ticket | Get a support ticket with its conversation history. | ticket_id:str:Ticket
support_escalate_ticket | Escalate a ticket to the next support tier or to engineering. | ticket_id:str:Ticket; reason:str:Why it needs escalation
support_merge_tickets | Merge duplicate tickets from the same customer about the same problem. | ticket_id:str:Ticket to keep; duplicate_ids:list:Tickets to merge in
support_list_macros | List canned responses (macros) agents can apply to tickets. | query?:str:Words in the macro title
support_apply_macro | Apply a canned response to a ticket. | ticket_id:str:Ticket; macro_id:str:Macro
support_get_satisfaction | Get customer satisfaction (CSAT) ratings for solved tickets over a period. | start:str:Period start; end:str:Period end
support_search_help_center | Search the public help center articles for an answer to a customer question. | query:str:Question or keywords
support_create_help_article | Write and publish a new help center article. | title:str:Article title; body:str:Article text; section:str:Help center section
# devops
ci_trigger_build | Start a CI build for a branch or commit. | repo:str:Repository; branch:str:Branch or commit SHA
ci_get_build_status | Get the status and failing steps of a CI build. | build_id:str:Build
ci_get_build_logs | Fetch the log output of a CI build step. | build_id:str:Build; step?:str:Only this step
ci_rerun_failed_jobs | Rerun only the failed jobs of a CI pipeline. | build_id:str:Build
ci_cancel_build | Cancel a running CI build. | build_id:str:Build
deploy_service | Deploy a version of a service to an environment such as staging or production. | service:str:Service name; version:str:Version or image tag; environment:dev|staging|production:Target environment
deploy_rollback | Roll a service back to its previous release. | service:str:Service name; environment:str:Environment; to_version?:str:Release to go back to
deploy_get_history | List recent deployments of a service with who deployed what and when. | service:str:Service name; environment?:str:Environment
deploy_promote_release | Promote a release that passed on staging to production. | release_id:str:Release
feature_flag_toggle | Turn a feature flag on or off for an environment or a percentage of users. | flag:str:Flag key; enabled:bool:On or off; environment:str:Environment; rollout_percent?:int:Share of users
feature_flag_list | List feature flags and their state in each environment. | environment?:str:Environment
secrets_rotate | Rotate a secret such as a database password or API key and update the services using it. | secret_name:str:Secret to rotate
secrets_get_metadata | Show when a secret was created, last rotated and which services read it (never its value). | secret_name:str:Secret
cdn_purge_cache | Purge cached files from the CDN so visitors get the new version. | paths:list:URL paths to purge
# cloud infrastructure
vm_create_instance | Launch a new virtual machine with a size, image and region. | name:str:Instance name; size:str:Machine type; image:str:OS image; region:str:Region
vm_stop_instance | Stop a running virtual machine to save costs; its disk is kept. | instance_id:str:Instance
vm_start_instance | Start a stopped virtual machine. | instance_id:str:Instance
vm_reboot_instance | Reboot a virtual machine that is stuck or needs a restart. | instance_id:str:Instance
vm_list_instances | List virtual machines with their state, size and IP address. | region?:str:Only this region; state?:running|stopped:Only in this state
vm_create_snapshot | Take a snapshot of a virtual machine's disk as a backup. | instance_id:str:Instance; description?:str:Note for the snapshot
k8s_scale_deployment | Scale a Kubernetes deployment to a number of replicas. | namespace:str:Namespace; deployment:str:Deployment name; replicas:int:Number of pods
k8s_restart_deployment | Restart all pods of a Kubernetes deployment with a rolling restart. | namespace:str:Namespace; deployment:str:Deployment name
k8s_get_pod_logs | Get the logs of a Kubernetes pod's container. | namespace:str:Namespace; pod:str:Pod name; tail_lines?:int:Last lines only
k8s_list_pods | List pods in a namespace with their status and restart counts. | namespace:str:Namespace; label_selector?:str:Only pods with these labels
dns_update_record | Create or change a DNS record (A, CNAME, TXT, MX) for a domain. | domain:str:Domain; record_type:A|AAAA|CNAME|TXT|MX:Record type; name:str:Host name; value:str:Record value
cloud_get_cost_report | Get cloud spending by service, project or tag for a period. | start:str:Period start; end:str:Period end; group_by?:service|project|tag:How to split the costs
storage_create_bucket | Create an object storage bucket in a region with versioning on or off. | name:str:Bucket name; region:str:Region; versioning?:bool:Keep old versions
# monitoring
monitoring_query_metrics | Query a time series metric such as CPU, latency or error rate over a time range. | metric:str:Metric name; start:str:Range start; end:str:Range end; service?:str:Only this service
monitoring_create_alert | Create an alert rule that pages when a metric crosses a threshold. | metric:str:Metric name; threshold:num:Value that triggers it; channel:str:Where to notify
monitoring_silence_alert | Silence an alert for a while, for example during maintenance. | alert_id:str:Alert; duration_minutes:int:How long to silence
monitoring_list_active_alerts | List alerts that are firing right now. | severity?:critical|warning|info:Only this severity
incident_create | Declare an incident with a severity, summary and affected services, and page the on-call responder. | title:str:Incident title; severity:sev1|sev2|sev3:Severity; services?:list:Affected services
incident_update_status | Post a status update on an open incident for stakeholders. | incident_id:str:Incident; status:investigating|identified|monitoring|resolved:Stage; message:str:Update text
incident_get_on_call | Find out who is on call now for a team or service. | team:str:Team or service
logs_search | Search application logs by text, service and time range. | query:str:Text or expression; service?:str:Service; since?:str:Start of the time range
uptime_check_status | Check whether a website or endpoint is up and how fast it responds. | url:str:URL to check
status_page_post_update | Publish an update on the public status page about an outage or maintenance. | title:str:Headline; body:str:Details for customers; component?:str:Affected component
# git and code hosting
git_create_pull_request | Open a pull request from one branch into another with a title and description. | repo:str:Repository; head:str:Branch with the changes; base:str:Branch to merge into; title:str:Title; body?:str:Description
git_merge_pull_request | Merge an approved pull request, with merge, squash or rebase. | repo:str:Repository; number:int:Pull request number; method?:merge|squash|rebase:How to merge
git_list_pull_requests | List open pull requests of a repository, by author or reviewer. | repo:str:Repository; author?:str:Author; reviewer?:str:Reviewer
git_request_review | Ask people to review a pull request. | repo:str:Repository; number:int:Pull request number; reviewers:list:Usernames
git_comment_on_pull_request | Leave a review comment on a pull request. | repo:str:Repository; number:int:Pull request number; body:str:Comment
git_create_branch | Create a new branch from another branch or commit. | repo:str:Repository; name:str:New branch name; from_ref:str:Branch or commit to start from
git_delete_branch | Delete a branch that is merged or no longer needed. | repo:str:Repository; name:str:Branch name
git_create_issue | File an issue in a repository's tracker with labels and an assignee. | repo:str:Repository; title:str:Title; body:str:Description; labels?:list:Labels
git_search_code | Search source code across repositories for a string or symbol. | query:str:Text or symbol to find; repo?:str:Only this repository
git_get_file | Read a file's contents from a repository at a branch or commit. | repo:str:Repository; path:str:File path; ref?:str:Branch or commit
git_compare_commits | Show the diff between two branches, tags or commits. | repo:str:Repository; base:str:Older ref; head:str:Newer ref
git_create_release | Tag a release with notes so users can download it. | repo:str:Repository; tag:str:Version tag; notes:str:Release notes
# files
files_upload | Upload a file to cloud drive storage into a folder. | name:str:File name; content_base64:str:File content; folder_id?:str:Target folder
files_download | Download a file from cloud drive storage. | file_id:str:File
files_search | Search files in the drive by name, type or text inside them. | query:str:Words to find; file_type?:pdf|doc|sheet|image|any:File type
files_share | Share a file or folder with people, as viewer or editor. | file_id:str:File or folder; emails:list:People to share with; role:viewer|editor:Access level
files_create_share_link | Create a public link to a file that anyone with the link can open. | file_id:str:File; expires?:str:When the link stops working
files_move | Move a file into another folder. | file_id:str:File; folder_id:str:Destination folder
files_delete | Move a file to the trash. | file_id:str:File
files_restore | Restore a deleted file from the trash. | file_id:str:File
files_create_folder | Create a new folder in the drive. | name:str:Folder name; parent_id?:str:Parent folder
files_list_versions | List earlier versions of a file, to see or restore an old one. | file_id:str:File
files_get_storage_quota | Show how much drive storage is used and how much is left. | user?:str:User, yourself if left out
files_convert_format | Convert a document to another format such as PDF, DOCX or CSV. | file_id:str:File; target_format:pdf|docx|csv|xlsx|png:Format to convert to
# documents
docs_create_document | Create a new text document with a title and optional content. | title:str:Document title; content?:str:Initial text
docs_append_text | Append text at the end of a document. | document_id:str:Document; text:str:Text to add
docs_summarize | Summarize a long document into a few key points. | document_id:str:Document; max_points?:int:Number of bullet points
docs_extract_tables | Extract the tables in a PDF or scanned document as rows and columns. | file_id:str:Document
docs_ocr_image | Read the printed or handwritten text in an image or scan (OCR). | file_id:str:Image or scan
sheets_append_row | Add a row to a spreadsheet. | spreadsheet_id:str:Spreadsheet; sheet:str:Sheet name; values:list:Cell values
sheets_read_range | Read cell values from a spreadsheet range like A1:D20. | spreadsheet_id:str:Spreadsheet; range:str:Cell range
sheets_update_cells | Write values into spreadsheet cells. | spreadsheet_id:str:Spreadsheet; range:str:Cell range; values:list:Values to write
esign_send_envelope | Send a document for electronic signature to one or more signers. | file_id:str:Document; signers:list:Signer emails; message?:str:Note to the signers
esign_get_envelope_status | Check who has signed a document sent for e-signature and who has not. | envelope_id:str:Envelope
# weather
weather_get_current | Get the current weather for a city: temperature, conditions, wind and humidity. | city:str:City name; units?:metric|imperial:Units
weather_get_forecast | Get the weather forecast for the next days for a city. | city:str:City name; days?:int:Days ahead, up to 14
weather_get_hourly_forecast | Get an hour-by-hour forecast for the next 48 hours, including chance of rain. | city:str:City name
weather_get_alerts | Get active severe weather warnings (storms, floods, heat) for a region. | region:str:Region or city
weather_get_air_quality | Get the air quality index and pollen levels for a city. | city:str:City name
weather_get_historical | Get past weather observations for a city on a date. | city:str:City name; date:str:Date
weather_get_sunrise_sunset | Get sunrise and sunset times for a place and date. | city:str:City name; date?:str:Date, today if left out
weather_get_marine | Get wave height, tides and wind at sea for a coastal location. | location:str:Coast or harbour
# travel
flights_search | Search flights between two airports on a date, with passengers and cabin class. | origin:str:Departure airport code; destination:str:Arrival airport code; date:str:Departure date; passengers?:int:Travellers; cabin?:economy|premium|business|first:Cabin class
flights_book | Book a flight offer for the given passengers. | offer_id:str:Flight offer from a search; passengers:list:Passenger names
flights_get_status | Get the live status of a flight: delays, gate and terminal. | flight_number:str:Flight number like LH400; date?:str:Date
flights_cancel_booking | Cancel a flight booking and request a refund or voucher. | booking_ref:str:Booking reference
flights_check_in | Check in for a flight and get the boarding pass. | booking_ref:str:Booking reference; last_name:str:Passenger last name
flights_choose_seat | Pick or change a seat on a booked flight. | booking_ref:str:Booking reference; seat:str:Seat like 14C
hotels_search | Search hotels in a city for check-in and check-out dates and a number of guests. | city:str:City; check_in:str:Arrival date; check_out:str:Departure date; guests?:int:Guests
hotels_book | Reserve a hotel room from a search result. | offer_id:str:Room offer; guest_name:str:Name on the booking
hotels_cancel_reservation | Cancel a hotel reservation. | reservation_id:str:Reservation
cars_search_rentals | Search rental cars at a pick-up location and dates. | location:str:Pick-up location; pick_up:str:Pick-up date and time; drop_off:str:Drop-off date and time
trains_search | Search train connections between two stations on a date. | origin:str:From station; destination:str:To station; date:str:Travel date
travel_get_itinerary | Get a trip's full itinerary: flights, hotels and cars in order. | trip_id:str:Trip
travel_check_visa_requirements | Check whether a traveller needs a visa for a destination country. | nationality:str:Passport country; destination:str:Country to visit
currency_convert | Convert an amount of money from one currency to another at today's rate. | amount:num:Amount; from_currency:str:Currency code; to_currency:str:Currency code
# maps
maps_get_directions | Get driving, walking, cycling or transit directions between two places. | origin:str:Start address; destination:str:End address; mode?:driving|walking|cycling|transit:How to travel
maps_geocode | Turn an address into latitude and longitude coordinates. | address:str:Address
maps_reverse_geocode | Turn latitude and longitude into a street address. | lat:num:Latitude; lon:num:Longitude
maps_search_places | Find places nearby, like restaurants, pharmacies or petrol stations. | query:str:What to find; near:str:Address or city; open_now?:bool:Only places open now
maps_get_travel_time | Estimate how long it takes to get from one place to another with current traffic. | origin:str:Start address; destination:str:End address
maps_get_place_details | Get a place's opening hours, phone number, rating and reviews. | place_id:str:Place
timezone_lookup | Find the time zone and local time for a city or coordinates. | location:str:City or coordinates
maps_distance_matrix | Compute distances and travel times between several origins and destinations. | origins:list:Start addresses; destinations:list:End addresses
# hr
hr_get_employee | Get an employee's profile: role, manager, department, start date and location. | employee_id:str:Employee
hr_search_employees | Search the employee directory by name, team or skill. | query:str:Words to find; department?:str:Department
hr_request_time_off | Request vacation or sick leave for a date range. | start:str:First day off; end:str:Last day off; kind:vacation|sick|parental|unpaid:Type of leave
hr_approve_time_off | Approve or reject an employee's leave request. | request_id:str:Leave request; approve:bool:Approve or reject; comment?:str:Note to the employee
hr_get_time_off_balance | Get how many vacation days an employee has left this year. | employee_id:str:Employee
hr_onboard_employee | Start onboarding a new hire: accounts, laptop, welcome email and first-week tasks. | name:str:New hire's name; start_date:str:First day; role:str:Job title; manager_id:str:Manager
hr_offboard_employee | Offboard a leaving employee: revoke access, collect equipment, final pay. | employee_id:str:Employee; last_day:str:Last working day
hr_create_job_posting | Publish a job opening on the careers page and job boards. | title:str:Job title; department:str:Department; description:str:Role description; location?:str:Office or remote
hr_list_candidates | List applicants for a job opening and their interview stage. | job_id:str:Job opening; stage?:applied|screen|interview|offer|hired:Stage
hr_schedule_interview | Schedule an interview between a candidate and interviewers. | candidate_id:str:Candidate; interviewers:list:Interviewer emails; start:str:Start time
hr_send_offer_letter | Send an offer letter with salary and start date to a candidate. | candidate_id:str:Candidate; salary:num:Annual salary; start_date:str:Start date
hr_start_performance_review | Open a performance review cycle for a team, with self and manager reviews. | team:str:Team; due_date:str:When reviews are due
hr_get_org_chart | Get the reporting lines under a manager. | manager_id:str:Manager
hr_update_job_title | Change an employee's job title or department after a promotion or move. | employee_id:str:Employee; title:str:New title; department?:str:New department
# payroll and expenses
payroll_run | Run payroll for a pay period and pay employees. | period:str:Pay period like 2026-06
payroll_get_payslip | Get an employee's payslip for a month: gross, taxes, deductions and net pay. | employee_id:str:Employee; month:str:Month like 2026-05
payroll_update_salary | Change an employee's salary from an effective date. | employee_id:str:Employee; salary:num:New annual salary; effective:str:Effective date
payroll_get_tax_forms | Get an employee's yearly tax forms such as W-2 or P60. | employee_id:str:Employee; year:int:Tax year
expenses_submit_report | Submit an expense report with receipts for reimbursement. | title:str:Report title; receipt_ids:list:Receipts included
expenses_upload_receipt | Upload a photo of a receipt and read its merchant, date and amount. | file_id:str:Receipt image
expenses_approve_report | Approve or reject a submitted expense report. | report_id:str:Report; approve:bool:Approve or reject
expenses_get_policy | Get the company expense policy limits for a category such as meals or travel. | category:str:Expense category
# analytics
analytics_run_report | Run a saved analytics report for a date range. | report_id:str:Saved report; start:str:Range start; end:str:Range end
analytics_get_page_views | Get page views and unique visitors of a website over time. | site:str:Website; start:str:Range start; end:str:Range end; path?:str:Only this page
analytics_get_conversion_funnel | Show how many users drop off at each step of a signup or checkout funnel. | funnel_id:str:Funnel; start:str:Range start; end:str:Range end
analytics_get_retention | Get user retention cohorts: how many users come back after N days or weeks. | start:str:First cohort date; period?:day|week|month:Cohort size
analytics_track_event | Record a product analytics event for a user. | user_id:str:User; event:str:Event name; properties?:str:Event properties as JSON
analytics_get_active_users | Get daily, weekly and monthly active users. | start:str:Range start; end:str:Range end
analytics_top_referrers | List the websites and campaigns that send the most traffic. | site:str:Website; start:str:Range start; end:str:Range end
analytics_create_dashboard | Create a dashboard with charts of chosen metrics. | name:str:Dashboard name; metrics:list:Metrics to chart
analytics_export_data | Export raw analytics data for a date range to a CSV file. | dataset:str:Dataset; start:str:Range start; end:str:Range end
analytics_ab_test_results | Get the results of an A/B experiment: conversion per variant and significance. | experiment_id:str:Experiment
analytics_detect_anomalies | Find unusual spikes or drops in a metric. | metric:str:Metric name; start:str:Range start; end:str:Range end
analytics_get_revenue | Get revenue, MRR and ARR by month. | start:str:Range start; end:str:Range end
# database
db_run_query | Run a read-only SQL query against the analytics database and return the rows. | sql:str:SQL SELECT statement; limit?:int:Maximum rows
db_list_tables | List the tables in a database schema. | schema?:str:Schema name
db_describe_table | Show a table's columns, types and indexes. | table:str:Table name
db_create_backup | Take a backup of a database. | database:str:Database name
db_restore_backup | Restore a database from a backup. | database:str:Database name; backup_id:str:Backup to restore
db_get_slow_queries | List the slowest queries on a database with their durations. | database:str:Database name; limit?:int:How many
db_run_migration | Apply pending schema migrations to a database. | database:str:Database name; dry_run?:bool:Only show what would change
cache_flush | Flush a Redis cache or keys matching a pattern. | pattern?:str:Only keys matching this pattern
# ecommerce
orders_get | Look up an order: items, totals, status and shipping address. | order_id:str:Order number
orders_search | Search orders by customer, status or date. | customer_email?:str:Customer email; status?:pending|paid|shipped|delivered|cancelled|returned:Order status; after?:str:Placed after
orders_cancel | Cancel an order that has not shipped yet and refund the customer. | order_id:str:Order number; reason?:str:Why
orders_update_shipping_address | Change the shipping address of an order before it ships. | order_id:str:Order number; address:str:New address
orders_create_return | Start a return for items in a delivered order and issue a return label. | order_id:str:Order number; items:list:Item IDs to return; reason:str:Why
orders_create | Place an order for a customer with products and quantities. | customer_id:str:Customer; items:list:Product IDs and quantities
products_search | Search the product catalog by name, category or price. | query:str:Words to find; max_price?:num:Price limit
products_update_price | Change a product's price or set a sale price. | product_id:str:Product; price:num:New price; sale_ends?:str:When a sale price ends
products_create | Add a new product to the store with name, price, description and images. | name:str:Product name; price:num:Price; description:str:Description
inventory_get_stock | Check how many units of a product are in stock in each warehouse. | product_id:str:Product; warehouse?:str:Warehouse
inventory_adjust_stock | Adjust stock levels after a count, damage or delivery. | product_id:str:Product; change:int:Units added or removed; reason:str:Why
inventory_create_purchase_order | Order more stock from a supplier. | supplier_id:str:Supplier; items:list:Products and quantities
cart_get_abandoned | List shopping carts that customers abandoned without checking out. | since?:str:Abandoned since
reviews_list_product_reviews | List customer reviews and star ratings of a product. | product_id:str:Product; min_stars?:int:Only reviews with at least this rating
# shipping
shipping_create_label | Buy and print a shipping label for a parcel. | order_id:str:Order; carrier:ups|fedex|dhl|usps:Carrier; service?:str:Service level
shipping_track_package | Track a parcel by its tracking number: where it is and when it arrives. | tracking_number:str:Tracking number; carrier?:str:Carrier
shipping_get_rates | Compare shipping rates and delivery times between carriers for a parcel. | from_zip:str:Origin postal code; to_zip:str:Destination postal code; weight_kg:num:Weight
shipping_schedule_pickup | Schedule a carrier pickup of parcels from an address. | carrier:str:Carrier; address:str:Pickup address; date:str:Pickup date
shipping_validate_address | Check that a postal address exists and correct its format. | address:str:Address to check
shipping_cancel_label | Void an unused shipping label and get the postage back. | label_id:str:Label
shipping_create_customs_form | Create the customs declaration for an international shipment. | order_id:str:Order; contents:str:What is inside; value:num:Declared value
shipping_list_shipments | List shipments sent in a period with their status. | after?:str:Shipped after; status?:in_transit|delivered|exception:Status
# marketing
marketing_send_campaign | Send an email marketing campaign to a list or segment. | campaign_id:str:Campaign; segment_id?:str:Audience segment
marketing_create_campaign | Create an email marketing campaign with subject, content and audience. | name:str:Campaign name; subject:str:Email subject; segment_id:str:Audience
marketing_get_campaign_stats | Get open rate, click rate and unsubscribes of an email campaign. | campaign_id:str:Campaign
marketing_create_segment | Create an audience segment from contact properties and behaviour. | name:str:Segment name; rule:str:Who belongs in it
marketing_schedule_social_post | Schedule a post on LinkedIn, X or Instagram. | network:linkedin|x|instagram|facebook:Social network; text:str:Post text; at:str:When to publish
marketing_get_social_mentions | Find recent social media mentions of the brand and their sentiment. | query:str:Brand or keyword; since?:str:Since date
marketing_create_landing_page | Create a landing page from a template with a signup form. | title:str:Page title; template:str:Template
marketing_get_ad_spend | Get ad spend, clicks and cost per acquisition by ad campaign. | platform:google|meta|linkedin:Ad platform; start:str:Range start; end:str:Range end
marketing_pause_ad_campaign | Pause a paid ad campaign. | platform:str:Ad platform; campaign_id:str:Ad campaign
seo_get_keyword_rankings | Get where the website ranks in search results for keywords. | site:str:Website; keywords:list:Keywords
# projects and tasks
tasks_create | Create a to-do task with a due date, assignee and project. | title:str:Task title; due?:str:Due date; assignee?:str:Who does it; project?:str:Project
tasks_complete | Mark a task as done. | task_id:str:Task
tasks_list | List tasks assigned to someone or in a project, by due date. | assignee?:str:Assignee; project?:str:Project; due_before?:str:Due before
tasks_update | Change a task's title, due date, assignee or priority. | task_id:str:Task; due?:str:New due date; assignee?:str:New assignee
tasks_add_comment | Comment on a task. | task_id:str:Task; text:str:Comment
jira_create_issue | Create a Jira issue (bug, story or task) in a project. | project:str:Project key; summary:str:Summary; issue_type:bug|story|task|epic:Issue type; description?:str:Details
jira_transition_issue | Move a Jira issue to another status, like In Progress or Done. | issue_key:str:Issue like PROJ-12; status:str:Target status
jira_search_issues | Search Jira issues with a JQL query or text. | jql:str:JQL query or words
jira_get_sprint | Get the current sprint's issues, goals and progress. | board_id:str:Board
jira_log_work | Log time spent on a Jira issue. | issue_key:str:Issue; hours:num:Time spent
projects_create | Create a project with members, a start and an end date. | name:str:Project name; members?:list:Members; end?:str:Deadline
projects_get_timeline | Get a project's milestones and Gantt timeline. | project_id:str:Project
# contacts
contacts_search | Search your personal address book by name, email or phone number. | query:str:Name, email or phone
contacts_create | Add a person to your personal address book. | name:str:Full name; email?:str:Email; phone?:str:Phone
contacts_update | Update a contact in your address book. | contact_id:str:Contact; phone?:str:New phone; email?:str:New email
contacts_delete | Remove a contact from your address book. | contact_id:str:Contact
contacts_get_birthdays | List upcoming birthdays of your contacts. | within_days?:int:Days ahead
contacts_import_vcard | Import contacts from a vCard or CSV file. | file_id:str:File
# security and identity
iam_create_user | Create a user account in the identity provider and send an invitation. | email:str:Email; name:str:Full name; groups?:list:Groups
iam_disable_user | Disable a user account so it can no longer sign in. | user_id:str:User
iam_reset_password | Send a password reset link to a user. | user_id:str:User
iam_reset_mfa | Reset a user's two-factor authentication so they can enroll a new device. | user_id:str:User
iam_add_to_group | Add a user to a group to grant its permissions. | user_id:str:User; group:str:Group
iam_remove_from_group | Remove a user from a group and the access it gives. | user_id:str:User; group:str:Group
iam_list_permissions | List what a user or role is allowed to access. | principal:str:User or role
iam_create_api_key | Create an API key for a service account with scopes and an expiry. | service_account:str:Service account; scopes:list:Scopes; expires_days?:int:Lifetime
iam_revoke_api_key | Revoke an API key immediately. | key_id:str:API key
security_get_audit_log | Get the audit log of sign-ins and admin actions for a user or period. | user_id?:str:User; since?:str:Since date
security_scan_vulnerabilities | Scan a container image or repository dependencies for known vulnerabilities (CVEs). | target:str:Image or repository
security_list_failed_logins | List failed sign-in attempts, for spotting brute-force attacks. | since?:str:Since; user_id?:str:User
# finance
accounting_create_journal_entry | Record a journal entry with debit and credit lines in the ledger. | date:str:Entry date; lines:list:Account, debit and credit lines; memo?:str:Memo
accounting_get_balance_sheet | Get the balance sheet: assets, liabilities and equity at a date. | date:str:As of date
accounting_get_profit_and_loss | Get the profit and loss statement for a period. | start:str:Period start; end:str:Period end
accounting_reconcile_bank | Match bank transactions with ledger entries for an account. | account_id:str:Bank account; month:str:Month
accounting_list_unpaid_bills | List supplier bills that are not paid yet, by due date. | due_before?:str:Due before
accounting_pay_bill | Pay a supplier bill from a bank account. | bill_id:str:Bill; account_id:str:Bank account
stocks_get_quote | Get the latest share price of a stock ticker. | symbol:str:Ticker like AAPL
stocks_get_history | Get a stock's daily price history. | symbol:str:Ticker; start:str:From date; end?:str:To date
crypto_get_price | Get the current price of a cryptocurrency such as bitcoin or ether. | coin:str:Coin name or symbol; currency?:str:Quote currency
bank_list_transactions | List transactions on a bank account for a period. | account_id:str:Bank account; start:str:From date; end:str:To date
# notes and knowledge
notes_create | Write a note in your notebook. | title:str:Title; body:str:Note text; tags?:list:Tags
notes_search | Search your notes. | query:str:Words to find
wiki_search | Search the internal company wiki for pages about a topic. | query:str:Words to find; space?:str:Wiki space
wiki_create_page | Create a page in the internal wiki. | space:str:Wiki space; title:str:Page title; body:str:Page text
wiki_update_page | Edit an existing wiki page. | page_id:str:Page; body:str:New text
bookmarks_save | Save a web page link to read later. | url:str:Page URL; tags?:list:Tags
# smart home
home_set_thermostat | Set the thermostat to a target temperature. | temperature:num:Target temperature; room?:str:Room
home_turn_on_lights | Turn lights on or off, and set brightness. | room:str:Room; on:bool:On or off; brightness?:int:Brightness percent
home_lock_door | Lock or unlock a smart door lock. | door:str:Door; locked:bool:Lock or unlock
home_get_camera_snapshot | Get a snapshot from a security camera. | camera:str:Camera name
home_start_vacuum | Start the robot vacuum cleaner in a room. | room?:str:Room, the whole home if left out
home_get_energy_usage | Get the household electricity usage for a period. | start:str:From date; end:str:To date
# utilities
translate_text | Translate text into another language. | text:str:Text to translate; target_language:str:Language code like fr; source_language?:str:Language of the text
detect_language | Detect which language a text is written in. | text:str:Text
time_get_current | Get the current date and time in a time zone. | timezone:str:IANA time zone like Europe/Paris
time_convert_timezone | Convert a date and time from one time zone to another. | time:str:Date and time; from_tz:str:From time zone; to_tz:str:To time zone
math_calculate | Evaluate an arithmetic expression. | expression:str:Expression like 17 * 38
units_convert | Convert a quantity between units, like miles to kilometres or Fahrenheit to Celsius. | value:num:Quantity; from_unit:str:Unit; to_unit:str:Unit
qr_generate_code | Generate a QR code image for a URL or text. | data:str:URL or text
url_shorten | Shorten a long URL into a short link. | url:str:Long URL
web_search | Search the public web and return the top results with titles and snippets. | query:str:Search terms; count?:int:Results
web_fetch_page | Fetch a web page and return its readable text. | url:str:Page URL
image_generate | Generate an image from a text prompt. | prompt:str:What to draw; size?:str:Size like 1024x1024
audio_transcribe | Transcribe speech in an audio or video file into text. | file_id:str:Recording; language?:str:Spoken language
pdf_merge | Merge several PDF files into one. | file_ids:list:PDFs in order
# education
lms_create_course | Create an online course with modules and an enrollment period. | title:str:Course title; start:str:Start date
lms_enroll_student | Enroll a student in a course. | course_id:str:Course; student_email:str:Student
lms_grade_assignment | Record a grade and feedback for a student's assignment. | assignment_id:str:Assignment; student_id:str:Student; grade:num:Grade; feedback?:str:Comments
lms_list_submissions | List submissions for an assignment, with late ones flagged. | assignment_id:str:Assignment
# legal and procurement
contracts_search | Search signed contracts by party, type or renewal date. | query:str:Words to find; renews_before?:str:Renewal before
contracts_get_renewal_dates | List contracts that renew or expire soon. | within_days:int:Days ahead
vendors_create | Register a new supplier with tax ID and bank details. | name:str:Supplier name; tax_id:str:Tax ID; iban?:str:Bank account
procurement_create_request | Request to buy equipment or software, for approval. | item:str:What to buy; cost:num:Estimated cost; justification:str:Why it is needed
# it helpdesk
it_request_laptop | Request a new or replacement laptop. | model?:str:Preferred model; reason:str:Why
it_request_software_license | Request a license for a software product. | software:str:Product; justification?:str:Why
it_report_outage | Report that an internal system such as VPN or Wi-Fi is down. | system:str:System; description:str:What happens
it_reset_vpn | Reset your VPN profile and certificates when the VPN will not connect. | device:str:Device name
# real estate and facilities
facilities_report_issue | Report a broken facility in the office, like a heater, light or door. | location:str:Where; description:str:What is broken
facilities_book_desk | Book a hot desk in the office for a day. | office:str:Office; date:str:Day
parking_book_spot | Reserve a parking spot at the office. | date:str:Day; vehicle?:str:Licence plate
visitors_register_guest | Pre-register a visitor so reception has a badge ready. | name:str:Visitor name; date:str:Visit date; host:str:Host employee
# food and delivery
food_search_restaurants | Find restaurants that deliver to an address, by cuisine. | address:str:Delivery address; cuisine?:str:Cuisine
food_place_order | Order food for delivery from a restaurant. | restaurant_id:str:Restaurant; items:list:Dishes; address:str:Delivery address
food_track_order | Track a food delivery order and its estimated arrival. | order_id:str:Delivery order
rides_request | Request a taxi or ride-share pickup to a destination. | pickup:str:Pickup address; destination:str:Destination
# media
music_play | Play a song, album, artist or playlist. | query:str:What to play; device?:str:Speaker or device
music_create_playlist | Create a playlist from a list of songs. | name:str:Playlist name; tracks:list:Songs
video_upload | Upload a video with title and description to the video platform. | file_id:str:Video file; title:str:Title; description?:str:Description
podcast_search | Search podcast episodes by topic or show. | query:str:Topic or show
news_get_headlines | Get the latest news headlines by topic or country. | topic?:str:Topic; country?:str:Country code
# health and fitness
fitness_log_workout | Log a workout with type, duration and calories. | kind:str:Workout type; minutes:int:Duration; calories?:int:Calories burned
fitness_get_steps | Get step counts per day from the fitness tracker. | start:str:From date; end:str:To date
health_book_appointment | Book a doctor's appointment at a clinic. | clinic_id:str:Clinic; reason:str:Reason for the visit; date:str:Preferred date
health_refill_prescription | Request a refill of a prescription from the pharmacy. | prescription_id:str:Prescription
"""

QUERIES = """
I need to move my 3pm meeting with Anna to Thursday | calendar_update_event
when is everyone on the design team available for an hour next week | calendar_find_free_slots
decline the invite for the quarterly review | calendar_respond_to_invite
I'm on holiday from the 3rd to the 14th, block my calendar | calendar_set_out_of_office
put a weekly 1:1 with my manager on the calendar | calendar_create_recurring_event
reserve the big conference room tomorrow 10 to 11 | calendar_book_room
remind me to call the dentist at 5 | calendar_create_reminder
what meetings do I have on Friday | calendar_list_events
let my assistant edit my calendar | calendar_share_calendar
email the quarterly report to the board | email_send_message
write up an email to Tom but don't send it yet | email_create_draft
answer everyone on that thread saying I agree | email_reply
find the email from DHL about customs | email_search_inbox
stop getting the marketing newsletter from Acme | email_unsubscribe
send this email at 8am Monday morning | email_schedule_send
automatically archive everything from noreply@jira.com | email_create_filter
that message is junk, get rid of it | email_mark_spam
post in #deployments that the release is done | slack_send_message
set me as in a meeting on slack for an hour | slack_set_status
make a private slack channel for the acquisition project | slack_create_channel
text my wife I'll be late | sms_send_text
send a 2FA code to +44 7700 900123 | sms_send_verification_code
ping the Sales team channel on Teams | teams_post_message
the customer wants to stop paying for their plan | billing_cancel_subscription
put the subscription on hold for two months | billing_pause_subscription
move acme corp from the basic plan to the pro plan | billing_change_plan
when does this customer's subscription renew | billing_get_subscription
how much does the enterprise tier cost | billing_list_plans
give them 20% off with a promo code | billing_apply_coupon
customer's card expired, they sent a new one | billing_update_payment_method
how many API calls has customer 881 used this month | billing_get_usage
give the customer their money back for order payment py_123 | payments_refund
someone filed a chargeback, I want to fight it | payments_respond_to_dispute
make a link people can use to pay 50 euros for the workshop | payments_create_payment_link
when does the money get to our bank account | payments_list_payouts
bill Globex for 40 hours of consulting due in 30 days | invoice_create
chase up the invoice that's 2 weeks late | invoice_send_reminder
they paid the invoice by wire transfer yesterday | invoice_record_payment
that invoice was wrong, cancel it | invoice_void
add Jane Doe from Initech to our CRM | crm_create_contact
this lead is qualified, turn it into an opportunity | crm_convert_lead
we won the Umbrella deal | crm_update_deal_stage
note that I had a call with Bob about pricing | crm_log_activity
there are two records for the same person, combine them | crm_merge_duplicates
what will we close this quarter | crm_forecast_revenue
give the Wayne Enterprises account to Maria | crm_assign_owner
customer says the app crashes on login, open a ticket | support_create_ticket
this ticket needs engineering to look at it | support_escalate_ticket
how happy were customers with support last month | support_get_satisfaction
is there a help article about resetting passwords | support_search_help_center
add an internal note on ticket 4411 | support_add_comment
kick off a build of the main branch | ci_trigger_build
why did build 5521 fail | ci_get_build_status
retry the jobs that failed in the pipeline | ci_rerun_failed_jobs
ship version 2.3.1 of checkout to production | deploy_service
the last release broke payments, go back to the previous version | deploy_rollback
who deployed to prod yesterday | deploy_get_history
enable the new onboarding flow for 10% of users | feature_flag_toggle
the database password leaked, change it everywhere | secrets_rotate
users still see the old logo, clear the cdn | cdn_purge_cache
spin up a new server in eu-west-1 | vm_create_instance
shut down the test VM over the weekend | vm_stop_instance
we need 6 pods of the api deployment | k8s_scale_deployment
show me the logs of the crashing pod | k8s_get_pod_logs
point blog.example.com to our new host | dns_update_record
how much did we spend on AWS last month | cloud_get_cost_report
what's the p99 latency of the search service today | monitoring_query_metrics
page me when the error rate goes above 5% | monitoring_create_alert
mute the disk alert during tonight's maintenance | monitoring_silence_alert
what alerts are going off right now | monitoring_list_active_alerts
the site is down, declare a sev1 | incident_create
who is on call for payments | incident_get_on_call
is example.com up | uptime_check_status
open a PR from feature/login into main | git_create_pull_request
squash and merge PR 42 | git_merge_pull_request
ask alice and bob to review my PR | git_request_review
where in the code do we call parse_invoice | git_search_code
what changed between v1.2 and v1.3 | git_compare_commits
publish release v3.0 with notes | git_create_release
find the contract PDF in my drive | files_search
give the finance team edit access to the budget folder | files_share
get me a public link to the slides | files_create_share_link
I deleted the wrong file, bring it back | files_restore
how much space do I have left in my drive | files_get_storage_quota
turn this word doc into a pdf | files_convert_format
give me the key points of this 40 page report | docs_summarize
read the text in this photo of a whiteboard | docs_ocr_image
add a line to the expenses spreadsheet | sheets_append_row
send the NDA to the client to sign | esign_send_envelope
has the client signed the contract yet | esign_get_envelope_status
is it raining in London right now | weather_get_current
what will the weather be like in Rome this weekend | weather_get_forecast
will it rain in the next few hours in Oslo | weather_get_hourly_forecast
are there any storm warnings for Florida | weather_get_alerts
is the air safe to go running in Delhi today | weather_get_air_quality
what time does the sun set in Reykjavik | weather_get_sunrise_sunset
find me a flight from Berlin to Lisbon on May 3 | flights_search
is LH400 delayed | flights_get_status
I want a window seat on my flight | flights_choose_seat
find a hotel in Kyoto for 3 nights from June 1 | hotels_search
I need a rental car at Denver airport | cars_search_rentals
do I need a visa to visit Brazil with a German passport | travel_check_visa_requirements
how much is 200 dollars in yen | currency_convert
how do I get to the airport by train | maps_get_directions
is there a pharmacy open near me | maps_search_places
how long will it take to drive to the office with traffic | maps_get_travel_time
what are the coordinates of the Eiffel Tower | maps_geocode
I want to take next Friday off | hr_request_time_off
how many vacation days do I have left | hr_get_time_off_balance
approve Sam's leave request | hr_approve_time_off
we hired a new designer starting Monday, set everything up | hr_onboard_employee
Kim is leaving on Friday, remove her access and get her laptop back | hr_offboard_employee
post a job opening for a senior backend engineer | hr_create_job_posting
set up interviews for the candidate with Ana and Raj | hr_schedule_interview
who reports to Priya | hr_get_org_chart
show me my pay stub for May | payroll_get_payslip
give Tom a raise to 85k from July | payroll_update_salary
I need my W-2 for last year | payroll_get_tax_forms
I took a client to dinner, how do I get reimbursed | expenses_submit_report
what's the limit for hotel costs on business trips | expenses_get_policy
where do people drop off in our checkout | analytics_get_conversion_funnel
how many people visited the pricing page last week | analytics_get_page_views
did variant B of the signup test win | analytics_ab_test_results
where does our website traffic come from | analytics_top_referrers
what's our MRR this year | analytics_get_revenue
how many users come back after the first week | analytics_get_retention
was there anything weird in signups last night | analytics_detect_anomalies
what columns does the users table have | db_describe_table
which queries are slowing down the database | db_get_slow_queries
back up the orders database before the migration | db_create_backup
where is my order 10023 | orders_get
cancel order 5567, the customer changed their mind | orders_cancel
the customer moved, change where the order ships to | orders_update_shipping_address
the shoes don't fit, I want to send them back | orders_create_return
how many of the blue mugs do we have left | inventory_get_stock
put the winter jackets on sale for 79 | products_update_price
we're running low on coffee beans, order more from the supplier | inventory_create_purchase_order
what did people say about the new headphones | reviews_list_product_reviews
where's my package 1Z999AA10123456784 | shipping_track_package
which carrier is cheapest for a 2 kg box to Chicago | shipping_get_rates
have UPS come pick up the boxes tomorrow | shipping_schedule_pickup
how did the spring newsletter perform | marketing_get_campaign_stats
post on LinkedIn tomorrow at 9 about the launch | marketing_schedule_social_post
what are people saying about us on twitter | marketing_get_social_mentions
stop the google ads campaign | marketing_pause_ad_campaign
where do we rank on google for project management software | seo_get_keyword_rankings
add a to-do to renew the domain by Friday | tasks_create
I finished the slides task | tasks_complete
file a bug in the MOBILE project about the crash | jira_create_issue
move PROJ-12 to done | jira_transition_issue
I spent 3 hours on PROJ-88 | jira_log_work
what's Peter's phone number | contacts_search
whose birthday is coming up | contacts_get_birthdays
a new contractor needs an account | iam_create_user
Mark lost his phone and can't do two-factor | iam_reset_mfa
give Lisa access to the finance group | iam_add_to_group
what can the intern account access | iam_list_permissions
our API key is compromised, kill it now | iam_revoke_api_key
check our docker image for CVEs | security_scan_vulnerabilities
is someone trying to brute force our logins | security_list_failed_logins
who changed the admin settings last week | security_get_audit_log
did we make a profit last quarter | accounting_get_profit_and_loss
which supplier bills are still unpaid | accounting_list_unpaid_bills
what's Apple stock trading at | stocks_get_quote
how much is bitcoin worth | crypto_get_price
is there a wiki page about the on-call process | wiki_search
make it 21 degrees in the living room | home_set_thermostat
turn off the kitchen lights | home_turn_on_lights
translate this paragraph into Spanish | translate_text
what time is it in Tokyo | time_get_current
what is 17 times 38 | math_calculate
how many kilometres is 26 miles | units_convert
make a QR code for our website | qr_generate_code
transcribe the recording of the interview | audio_transcribe
combine these three PDFs into one | pdf_merge
the VPN won't connect on my laptop | it_reset_vpn
the heater in meeting room 4 is broken | facilities_report_issue
I need a desk in the Berlin office on Tuesday | facilities_book_desk
a guest is coming to see me Thursday, tell reception | visitors_register_guest
get me a cab to the train station | rides_request
order pizza to the office | food_place_order
play some jazz on the kitchen speaker | music_play
what's in the news about climate today | news_get_headlines
log a 30 minute run | fitness_log_workout
I need to see a doctor about my back | health_book_appointment
which contracts are up for renewal next month | contracts_get_renewal_dates
I want to buy a new monitor for 300, need approval | procurement_create_request
my laptop is broken, I need a replacement | it_request_laptop
"""

# A second sentence on when to use the tool, as good catalogs have (MCP servers, OpenAPI
# summaries): written after a first measurement showed which words users use that a terse
# description lacks. queries_holdout.json was written after this table and never tuned on.
WHEN = {
    "calendar_update_event": "Use it to reschedule or move a meeting.",
    "calendar_find_free_slots": "Use it to see when people are available to meet.",
    "calendar_set_out_of_office": "Use it for holidays, vacation or leave; it blocks the calendar.",
    "calendar_list_events": "Shows your schedule and meetings for a day or a week.",
    "email_send_message": "Use it to email a file, report or note to people.",
    "email_search_inbox": "Finds an email you received.",
    "slack_send_message": "Use it to post an update or announcement in a #channel.",
    "billing_cancel_subscription": "Use it when a customer wants to stop paying or end their plan.",
    "billing_list_plans": "Shows how much each plan or tier costs.",
    "billing_apply_coupon": "Gives an existing subscriber a discount or promo code.",
    "payments_list_payouts": "Shows when money arrives in the bank account.",
    "invoice_create": "Use it to bill a customer for work, hours or products.",
    "crm_assign_owner": "Hands an account over to another rep.",
    "vm_create_instance": "Spins up a new server.",
    "dns_update_record": "Points a domain or subdomain at a host or IP address.",
    "cloud_get_cost_report": "Shows how much was spent on AWS, Google Cloud or Azure.",
    "monitoring_create_alert": "Notifies or pages someone when a value goes above a limit.",
    "incident_create": "Use it when the site or a service is down.",
    "uptime_check_status": "Tells whether a site is up or down.",
    "git_create_pull_request": "Also called a PR or merge request.",
    "git_search_code": "Finds where a function or symbol is used or defined.",
    "git_compare_commits": "Shows what changed between two versions.",
    "files_convert_format": "For example a Word file to PDF.",
    "esign_send_envelope": "Use it to get a contract, NDA or agreement signed.",
    "weather_get_current": "Tells whether it is raining, sunny or snowing right now.",
    "weather_get_sunrise_sunset": "When the sun rises and sets.",
    "flights_search": "Use it to fly from one city to another.",
    "currency_convert": "Exchange rates between dollars, euros, yen, pounds and other currencies.",
    "maps_get_directions": "How to get from one place to another by car, on foot, by bike or by "
    "public transport (train, bus).",
    "hr_get_org_chart": "Shows who reports to whom.",
    "payroll_update_salary": "Use it for a raise or any pay change.",
    "expenses_submit_report": "Use it to get reimbursed for money spent on work, like meals, "
    "taxis or hotels.",
    "expenses_get_policy": "What may be spent on hotels, meals and flights.",
    "analytics_get_page_views": "How many people visited a page.",
    "analytics_detect_anomalies": "Flags anything unusual.",
    "orders_create_return": "Use it when a customer wants to send items back for a refund or "
    "exchange.",
    "reviews_list_product_reviews": "What customers say about a product.",
    "shipping_schedule_pickup": "The carrier comes to collect parcels or boxes.",
    "marketing_get_campaign_stats": "How a newsletter or email campaign performed.",
    "marketing_get_social_mentions": "What people say about the brand on Twitter/X, Instagram "
    "or LinkedIn.",
    "seo_get_keyword_rankings": "The position on Google for search terms.",
    "tasks_create": "Adds an item to your to-do list.",
    "iam_create_user": "Gives a new employee or contractor an account to sign in with.",
    "iam_list_permissions": "Shows what an account can access.",
    "rides_request": "Books a taxi, cab or ride.",
    "food_place_order": "Orders a meal like pizza or sushi to be delivered.",
}

# Written after WHEN and the search were settled, and never used to tune either: recall on these
# is the honest figure (bench_search.py reports both sets).
HOLDOUT = """
can you push the sync with Maria to next Tuesday afternoon | calendar_update_event
forward the invoice email to accounting | email_forward
label all the emails from the lawyer as Legal | email_add_label
react with a thumbs up to Dave's message in slack | slack_add_reaction
send a notification to user 77's phone that their order is ready | push_send_notification
start a free trial of the team plan for customer 12 | billing_create_subscription
let the customer resume billing after their break | billing_resume_subscription
charge the customer 120 dollars for the extra seats | payments_create_charge
is payment pi_889 refunded already | payments_get_payment
get me the pdf of invoice 2024-117 | invoice_download_pdf
find everyone at Initech in the CRM | crm_search_contacts
open a new deal for Acme worth 50k closing in March | crm_create_deal
which tickets are still waiting on the customer | support_search_tickets
reply to ticket 9981 with the refund macro | support_apply_macro
show me the output of step test in build 311 | ci_get_build_logs
stop that build, it's using the wrong branch | ci_cancel_build
which feature flags are on in staging | feature_flag_list
bounce the web deployment in the prod namespace | k8s_restart_deployment
which pods keep restarting in kube-system | k8s_list_pods
restart the frozen VM i-0abc | vm_reboot_instance
search the logs of the auth service for timeout errors since 9am | logs_search
post an update that the outage is resolved on the status page | status_page_post_update
make a branch called hotfix off main | git_create_branch
open a github issue about the broken link on the docs site | git_create_issue
put the contract in the Legal folder | files_move
show older versions of the pricing spreadsheet | files_list_versions
pull the tables out of this scanned bank statement | docs_extract_tables
what's in cells B2 to B40 of the budget sheet | sheets_read_range
what will the waves be like at Biarritz tomorrow | weather_get_marine
how hot was it in Madrid on 1 August last year | weather_get_historical
book the 7am flight offer for me and Sam | flights_book
check me in for my flight tomorrow, booking ABC123 | flights_check_in
cancel my hotel booking in Lisbon | hotels_cancel_reservation
trains from Paris to Brussels on Saturday | trains_search
what's the street address at 48.8584, 2.2945 | maps_reverse_geocode
what time is it in Sydney right now | time_get_current
find someone on the data team who knows Spark | hr_search_employees
who applied for the designer role | hr_list_candidates
send Ana the offer, 95k starting June 1 | hr_send_offer_letter
run June payroll | payroll_run
here's a photo of my taxi receipt | expenses_upload_receipt
how many daily active users did we have in May | analytics_get_active_users
export last month's events to CSV | analytics_export_data
show me the tables in the warehouse schema | db_list_tables
how many orders are still pending from this week | orders_search
add 40 units of SKU-22 after the delivery | inventory_adjust_stock
print a FedEx label for order 7781 | shipping_create_label
is 1600 Amphitheatre Pkwy a valid address | shipping_validate_address
create a segment of customers who bought twice | marketing_create_segment
what are my tasks due this week | tasks_list
what's in the current sprint | jira_get_sprint
Bob's number changed, update it in my contacts | contacts_update
lock out the account of the employee who just left | iam_disable_user
Priya forgot her password | iam_reset_password
make an API key for the billing service with read scope | iam_create_api_key
show the balance sheet at the end of June | accounting_get_balance_sheet
how did Tesla shares do this year | stocks_get_history
jot down a note about the call with the landlord | notes_create
update the onboarding wiki page with the new laptop steps | wiki_update_page
lock the front door | home_lock_door
what language is this text in | detect_language
shorten this link for the tweet | url_shorten
what does this page say, https://example.com/blog | web_fetch_page
enroll jo@school.org in the Python course | lms_enroll_student
reserve a parking space for Monday | parking_book_spot
where's my sushi delivery | food_track_order
make a playlist with these songs for the party | music_create_playlist
how many steps did I walk last week | fitness_get_steps
I need a refill of my asthma inhaler prescription | health_refill_prescription
I need a Figma license | it_request_software_license
"""


def _param(text: str) -> dict[str, object]:
    name, kind, description = (part.strip() for part in text.split(":", 2))
    param: dict[str, object] = {"name": name.rstrip("?"), "description": description}
    if name.endswith("?"):
        param["required"] = False
    if "|" in kind:
        param["type"], param["enum"] = "string", kind.split("|")
    elif kind == "list":
        param["type"], param["items"] = "array", "string"
    else:
        param["type"] = {"str": "string", "int": "integer", "num": "number", "bool": "boolean"}[
            kind
        ]
    return param


def _category(name: str) -> str:
    words = set(name.split("_"))
    if words & EXECUTE:
        return "execute"
    return "read" if words & READ else "write"


def catalog() -> list[dict[str, object]]:
    tools = []
    for line in TOOLS.strip().splitlines():
        if line.startswith("#"):
            continue
        name, description, params = (part.strip() for part in line.split(" | "))
        tools.append(
            {
                "name": name,
                "description": f"{description} {WHEN[name]}" if name in WHEN else description,
                "category": _category(name),
                "parameters": [_param(p) for p in params.split(";") if p.strip()],
            }
        )
    return tools


def queries(names: set[str], table: str) -> list[dict[str, str]]:
    labelled = []
    for line in table.strip().splitlines():
        query, tool = (part.strip() for part in line.rsplit(" | ", 1))
        if tool not in names:
            raise SystemExit(f"query {query!r} is labelled {tool!r}, which is not in the catalog")
        labelled.append({"query": query, "tool": tool})
    return labelled


def main(argv: list[str]) -> int:
    tools = catalog()
    names = [tool["name"] for tool in tools]
    duplicates = {name for name in names if names.count(name) > 1}
    if duplicates:
        raise SystemExit(f"duplicate tool names: {sorted(duplicates)}")
    files = {
        OUT / "catalog.json": tools,
        OUT / "queries.json": queries(set(names), QUERIES),  # type: ignore[arg-type]
        OUT / "queries_holdout.json": queries(set(names), HOLDOUT),  # type: ignore[arg-type]
    }
    stale = []
    for path, data in files.items():
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        if "--check" in argv:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print(f"out of date: {', '.join(stale)}; run python benchmarks/make_catalog.py")
        return 1
    count = len(files[OUT / "queries.json"]) + len(files[OUT / "queries_holdout.json"])
    print(f"{len(tools)} tools, {count} queries")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
